"""VecVideoRecorder: record the rendered images of a VecEnv as mp4 videos."""
import importlib.util
import os
from typing import Callable, List

import numpy as np

from stable_baselines.common.vec_env.base_vec_env import VecEnv, VecEnvWrapper


def _require_moviepy() -> None:
    """Raise a clear ImportError if moviepy (the video writer used by gymnasium) is not installed."""
    if importlib.util.find_spec("moviepy") is None:
        raise ImportError("VecVideoRecorder needs the 'moviepy' package to write mp4 videos (the same writer as "
                          "gymnasium's video utilities): install it with `pip install moviepy` "
                          "(or `pip install \"gymnasium[other]\"`)")


def _write_video(frames: List[np.ndarray], path: str, fps: float) -> None:
    """Write RGB frames to an mp4 file with moviepy."""
    _require_moviepy()
    try:
        from moviepy import ImageSequenceClip  # pylint: disable=import-outside-toplevel  (moviepy >= 2)
    except ImportError:
        from moviepy.editor import ImageSequenceClip  # pylint: disable=import-outside-toplevel  (moviepy 1.x)
    clip = ImageSequenceClip([np.asarray(frame, dtype=np.uint8) for frame in frames], fps=fps)
    try:
        clip.write_videofile(path, logger=None)
    except TypeError:  # very old moviepy without the logger argument
        clip.write_videofile(path)


class VecVideoRecorder(VecEnvWrapper):
    """
    Wraps a VecEnv or VecEnvWrapper object to record rendered image as mp4 video.
    It requires the ``moviepy`` package (which brings ffmpeg). gymnasium environments must be created
    with ``render_mode='rgb_array'``.

    Frames are ``venv.render(mode='rgb_array')`` (the images of all environments tiled together). A video starts
    when ``record_video_trigger(step_id)`` is True (checked at reset and after each step) and is written to
    ``<video_folder>/<name_prefix>-step-<start>-to-step-<start + video_length>.mp4`` after ``video_length``
    steps, or when the recorder is closed.

    :param venv: (VecEnv or VecEnvWrapper)
    :param video_folder: (str) Where to save videos
    :param record_video_trigger: (func) Function that defines when to start recording.
                                        The function takes the current number of step,
                                        and returns whether we should start recording or not.
    :param video_length: (int)  Length of recorded videos
    :param name_prefix: (str) Prefix to the video name
    """

    def __init__(self, venv: VecEnv, video_folder: str, record_video_trigger: Callable[[int], bool],
                 video_length: int = 200, name_prefix: str = 'rl-video'):
        VecEnvWrapper.__init__(self, venv)
        if not callable(record_video_trigger):
            raise TypeError("record_video_trigger must be a function step -> bool, got {!r}"
                            .format(record_video_trigger))
        if int(video_length) < 1:
            raise ValueError("video_length must be a positive number of steps, got {!r}".format(video_length))
        _require_moviepy()
        self.env = venv
        try:
            metadata = venv.unwrapped.get_attr('metadata', indices=[0])[0] or {}
        except Exception:  # pylint: disable=broad-except
            metadata = getattr(venv, 'metadata', None) or {}
        self.metadata = metadata
        self.fps = float(metadata.get('render_fps') or metadata.get('video.frames_per_second') or 30)

        self.record_video_trigger = record_video_trigger
        self.video_folder = os.path.abspath(video_folder)
        # Create output folder if needed
        os.makedirs(self.video_folder, exist_ok=True)

        self.name_prefix = name_prefix
        self.step_id = 0
        self.video_length = int(video_length)

        self.recording = False
        self.recorded_frames = 0
        self.frames = []
        self.video_path = None
        self.video_paths = []
        self._closed = False

    def reset(self):
        obs = self.venv.reset()
        if self._video_enabled():
            self.start_video_recorder()
        return obs

    def start_video_recorder(self) -> None:
        """Start a new video (closing the current one), beginning with the current frame."""
        self.close_video_recorder()

        video_name = '{}-step-{}-to-step-{}.mp4'.format(self.name_prefix, self.step_id,
                                                        self.step_id + self.video_length)
        self.video_path = os.path.join(self.video_folder, video_name)
        self.frames = []
        self.recording = True
        self._capture_frame()

    def _capture_frame(self) -> None:
        frame = self.venv.render(mode='rgb_array')
        if frame is None:
            raise ValueError("VecVideoRecorder got no image from render(mode='rgb_array'); gymnasium environments "
                             "must be created with render_mode='rgb_array'")
        self.frames.append(np.asarray(frame))
        self.recorded_frames = len(self.frames)

    def _video_enabled(self) -> bool:
        return bool(self.record_video_trigger(self.step_id))

    def step_wait(self):
        obs, rews, dones, infos = self.venv.step_wait()

        self.step_id += 1
        if self.recording:
            self._capture_frame()
            if self.recorded_frames > self.video_length:
                self.close_video_recorder()
        elif self._video_enabled():
            self.start_video_recorder()

        return obs, rews, dones, infos

    def close_video_recorder(self) -> None:
        """Write the video being recorded (if any) to disk."""
        if self.recording and self.frames:
            _write_video(self.frames, self.video_path, self.fps)
            self.video_paths.append(self.video_path)
        self.recording = False
        self.frames = []
        self.recorded_frames = 0

    def close(self):
        if self._closed:
            return
        self._closed = True
        self.close_video_recorder()
        VecEnvWrapper.close(self)

    def __del__(self):
        try:
            if not self.__dict__.get("_closed", True):
                self.close()
        except Exception:  # pylint: disable=broad-except
            pass
