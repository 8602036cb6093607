"""VecVideoRecorder: record the rendered images of a VecEnv as mp4 videos."""
import importlib.util
import os
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from stable_baselines.common.vec_env.base_vec_env import VecEnv, VecEnvObs, VecEnvStepReturn, VecEnvWrapper


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


def _first_env_metadata(venv: VecEnv) -> Dict[str, Any]:
    """The metadata of the first environment (its ``render_fps``), else the VecEnv's own."""
    try:
        return venv.unwrapped.get_attr('metadata', indices=[0])[0] or {}
    except Exception:  # pylint: disable=broad-except
        return getattr(venv, 'metadata', None) or {}


class VecVideoRecorder(VecEnvWrapper):
    """
    Films a VecEnv: the frames are ``venv.render(mode='rgb_array')`` (the images of all environments
    tiled together), written as mp4 files with ``moviepy``. gymnasium environments must be created
    with ``render_mode='rgb_array'``.

    A recording starts whenever ``record_video_trigger(step_id)`` returns True (asked at reset and after
    each step while not recording) and ends after ``video_length`` steps, or when the recorder is closed;
    it is saved as ``<video_folder>/<name_prefix>-step-<start>-to-step-<start + video_length>.mp4``.

    :param venv: (VecEnv or VecEnvWrapper) the environments to film
    :param video_folder: (str) the folder of the videos (created if needed)
    :param record_video_trigger: (func) ``step_id -> bool``: whether to start a recording at this step
    :param video_length: (int) the number of steps in one video
    :param name_prefix: (str) the start of the file names
    """

    def __init__(self, venv: VecEnv, video_folder: str, record_video_trigger: Callable[[int], bool],
                 video_length: int = 200, name_prefix: str = 'rl-video') -> None:
        VecEnvWrapper.__init__(self, venv)
        if not callable(record_video_trigger):
            raise TypeError("record_video_trigger must be a function step -> bool, got {!r}"
                            .format(record_video_trigger))
        if int(video_length) < 1:
            raise ValueError("video_length must be a positive number of steps, got {!r}".format(video_length))
        _require_moviepy()
        self.env = venv
        self.metadata = _first_env_metadata(venv)
        self.fps = float(self.metadata.get('render_fps') or self.metadata.get('video.frames_per_second') or 30)
        self.record_video_trigger = record_video_trigger
        self.video_folder = os.path.abspath(video_folder)
        os.makedirs(self.video_folder, exist_ok=True)
        self.name_prefix = name_prefix
        self.video_length = int(video_length)
        self.step_id = 0
        self.recording = False
        self.recorded_frames = 0
        self.frames: List[np.ndarray] = []
        self.video_path: Optional[str] = None
        self.video_paths: List[str] = []
        self._closed = False

    def reset(self) -> VecEnvObs:
        obs = self.venv.reset()
        if self._video_enabled():
            self.start_video_recorder()
        return obs

    def start_video_recorder(self) -> None:
        """Start a new video (closing the current one), beginning with the current frame."""
        self.close_video_recorder()

        first, last = self.step_id, self.step_id + self.video_length
        self.video_path = os.path.join(self.video_folder, '{}-step-{}-to-step-{}.mp4'.format(self.name_prefix, first,
                                                                                             last))
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

    def step_wait(self) -> VecEnvStepReturn:
        result = self.venv.step_wait()
        self.step_id += 1
        if not self.recording:
            if self._video_enabled():
                self.start_video_recorder()
        else:
            self._capture_frame()
            if self.recorded_frames > self.video_length:
                self.close_video_recorder()
        return result

    def close_video_recorder(self) -> None:
        """Write the video being recorded (if any) to disk."""
        if self.recording and self.frames and self.video_path is not None:
            _write_video(self.frames, self.video_path, self.fps)
            self.video_paths.append(self.video_path)
        self.recording = False
        self.frames = []
        self.recorded_frames = 0

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.close_video_recorder()
        VecEnvWrapper.close(self)

    def __del__(self) -> None:
        try:
            if not self.__dict__.get("_closed", True):
                self.close()
        except Exception:  # pylint: disable=broad-except
            pass
