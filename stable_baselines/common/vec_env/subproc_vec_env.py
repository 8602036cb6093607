"""SubprocVecEnv: each environment runs in its own process."""
import multiprocessing
import traceback
from collections import OrderedDict
from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from stable_baselines.common import gym_compat
from stable_baselines.common.vec_env.base_vec_env import VecEnv, CloudpickleWrapper, render_env
from stable_baselines.common.vec_env.dummy_vec_env import (call_env_method, check_same_spaces, get_env_attr,
                                                           make_vec_env_member, random_seed, seed_env,
                                                           set_env_attr, step_env_auto_reset)

# how often (seconds) the parent checks that a worker it waits for is still alive
_POLL_INTERVAL = 0.1


class EnvWorkerError(RuntimeError):
    """
    Raised in the parent process when an environment of a SubprocVecEnv raised an exception or its
    worker process died. The message names the environment index and includes the worker's traceback.
    """


def _worker(remote, parent_remote, env_fn_wrapper, index):  # pragma: no cover - runs in the subprocess
    parent_remote.close()
    env = None
    pending_seed = None
    try:
        env = make_vec_env_member(env_fn_wrapper.var, index)
    except BaseException:  # pylint: disable=broad-except
        try:
            remote.send(("__error__", "creating the environment", traceback.format_exc()))
        except (BrokenPipeError, EOFError):
            pass
        remote.close()
        return
    remote.send(("ok", None))
    while True:
        try:
            cmd, data = remote.recv()
        except (EOFError, KeyboardInterrupt, OSError):
            break
        try:
            if cmd == 'step':
                result = step_env_auto_reset(env, data)
            elif cmd == 'reset':
                result = gym_compat.reset_env(env, seed=pending_seed)
                pending_seed = None
            elif cmd == 'seed':
                result, pending_seed = seed_env(env, data)
            elif cmd == 'render':
                result = render_env(env, data)
            elif cmd == 'close':
                env.close()
                remote.send(("ok", None))
                break
            elif cmd == 'get_spaces':
                result = (env.observation_space, env.action_space)
            elif cmd == 'env_method':
                result = call_env_method(env, data[0], *data[1], **data[2])
            elif cmd == 'get_attr':
                result = get_env_attr(env, data)
            elif cmd == 'set_attr':
                result = set_env_attr(env, data[0], data[1])
            else:
                raise NotImplementedError("`{}` is not implemented in the worker".format(cmd))
        except KeyboardInterrupt:
            break
        except BaseException:  # pylint: disable=broad-except
            remote.send(("__error__", cmd, traceback.format_exc()))
            continue
        try:
            remote.send(("ok", result))
        except (BrokenPipeError, EOFError):
            break
        except Exception:  # pylint: disable=broad-except
            # e.g. a result that cannot be pickled: report it instead of dying
            remote.send(("__error__", cmd, "The result of '{}' could not be sent to the main process:\n{}"
                         .format(cmd, traceback.format_exc())))
    remote.close()


class SubprocVecEnv(VecEnv):
    """
    Creates a multiprocess vectorized wrapper for multiple environments, distributing each environment to its own
    process, allowing significant speed up when the environment is computationally complex.

    For performance reasons, if your environment is not IO bound, the number of environments should not exceed the
    number of logical cores on your CPU.

    .. warning::

        Only 'forkserver' and 'spawn' start methods are thread-safe,
        which is important when TensorFlow sessions or other non thread-safe
        libraries are used in the parent (see issue #217). However, compared to
        'fork' they incur a small start-up cost and have restrictions on
        global variables. With those methods, users must wrap the code in an
        ``if __name__ == "__main__":`` block.
        For more information, see the multiprocessing documentation.

    If an environment raises an exception, or its process dies, the parent raises an
    :class:`EnvWorkerError` naming the environment index (with the worker's traceback) instead of hanging.

    :param env_fns: ([callable]) A list of functions that will create the environments
        (each callable returns a `Gym.Env` instance when called).
    :param start_method: (str) method used to start the subprocesses.
           Must be one of the methods returned by multiprocessing.get_all_start_methods().
           Defaults to 'forkserver' on available platforms, and 'spawn' otherwise.
    """

    def __init__(self, env_fns: List[Callable[[], Any]], start_method: Optional[str] = None):
        if callable(env_fns) or not hasattr(env_fns, "__len__") or len(env_fns) == 0:
            raise TypeError("SubprocVecEnv expected a non-empty list of functions that create environments, got {!r}"
                            .format(env_fns))
        for index, env_fn in enumerate(env_fns):
            if not callable(env_fn):
                raise TypeError("SubprocVecEnv takes a list of functions that create environments; element {} is "
                                "{!r}".format(index, env_fn))
        self.waiting = False
        self.closed = False
        self._broken = None
        self.reset_infos = [{} for _ in range(len(env_fns))]
        n_envs = len(env_fns)

        if start_method is None:
            # Fork is not a thread safe method (see issue #217)
            # but is more user friendly (does not require to wrap the code in
            # a `if __name__ == "__main__":`)
            forkserver_available = 'forkserver' in multiprocessing.get_all_start_methods()
            start_method = 'forkserver' if forkserver_available else 'spawn'
        if start_method not in multiprocessing.get_all_start_methods():
            raise ValueError("start_method must be one of {}, got {!r}"
                             .format(multiprocessing.get_all_start_methods(), start_method))
        self.start_method = start_method
        ctx = multiprocessing.get_context(start_method)

        self.remotes, self.work_remotes = zip(*[ctx.Pipe(duplex=True) for _ in range(n_envs)])
        self.processes = []
        for index, (work_remote, remote, env_fn) in enumerate(zip(self.work_remotes, self.remotes, env_fns)):
            args = (work_remote, remote, CloudpickleWrapper(env_fn), index)
            # daemon=True: if the main process crashes, we should not cause things to hang
            process = ctx.Process(target=_worker, args=args, daemon=True)  # pytype:disable=attribute-error
            process.start()
            self.processes.append(process)
            work_remote.close()

        try:
            self._receive_all(range(n_envs), "creating the environment")
            for remote in self.remotes:
                remote.send(('get_spaces', None))
            all_spaces = self._receive_all(range(n_envs), "get_spaces")
            check_same_spaces(all_spaces)
        except BaseException:
            self._terminate()
            self.closed = True
            raise
        observation_space, action_space = all_spaces[0]
        VecEnv.__init__(self, len(env_fns), observation_space, action_space)

    # ------------------------------------------------------------------------------------------
    # communication
    # ------------------------------------------------------------------------------------------
    def _check_usable(self):
        if self.closed:
            raise RuntimeError("This SubprocVecEnv is closed")
        if self._broken is not None:
            raise EnvWorkerError("This SubprocVecEnv can no longer be used: {}".format(self._broken))

    def _receive(self, index: int, what: str) -> Any:
        """Wait for the answer of worker ``index``; raise EnvWorkerError if it died. Returns ('ok', x) or error."""
        remote = self.remotes[index]
        process = self.processes[index]
        while True:
            try:
                if remote.poll(_POLL_INTERVAL):
                    return remote.recv()
            except (EOFError, OSError, ConnectionResetError):
                pass
            else:
                if process.is_alive():
                    continue
                # the process may have sent its last message just before exiting
                try:
                    if remote.poll(0):
                        return remote.recv()
                except (EOFError, OSError, ConnectionResetError):
                    pass
            process.join(timeout=1.0)
            exitcode = process.exitcode
            msg = ("The worker process of environment {} (pid {}) died while {} (exit code {}). The environment "
                   "probably crashed the interpreter (segfault, os._exit, killed by a signal or out of memory)."
                   .format(index, process.pid, what, exitcode))
            if what == "creating the environment" and self.start_method != "fork":
                msg += (" With the '{}' start method, the functions that create the environments are unpickled in a "
                        "fresh Python process: they must be importable there (see the worker's traceback above), and "
                        "the main script must be guarded by `if __name__ == \"__main__\":`.".format(self.start_method))
            self._broken = msg
            raise EnvWorkerError(msg)

    def _receive_all(self, indices: Sequence[int], what: str) -> List[Any]:
        """Collect the answers of the given workers (all of them, to keep the pipes in sync); raise the first error."""
        results = []
        errors = []
        died = None
        for index in indices:
            try:
                message = self._receive(index, what)
            except EnvWorkerError as err:
                died = died or err
                results.append(None)
                continue
            if message[0] == "__error__":
                errors.append((index, message[1], message[2]))
                results.append(None)
            else:
                results.append(message[1])
        if died is not None:
            self._terminate()
            raise died
        if errors:
            index, cmd, trace = errors[0]
            others = "" if len(errors) == 1 else " (environments {} failed too)".format([e[0] for e in errors[1:]])
            if cmd == "creating the environment":
                self._terminate()
            raise EnvWorkerError("Environment {} raised an exception in its worker process during '{}'{}:\n{}"
                                 .format(index, cmd, others, trace))
        return results

    def _send(self, indices: Sequence[int], cmd: str, data: Any = None, per_env_data: Optional[Sequence[Any]] = None):
        for position, index in enumerate(indices):
            try:
                self.remotes[index].send((cmd, data if per_env_data is None else per_env_data[position]))
            except (BrokenPipeError, OSError) as err:
                msg = ("Cannot send '{}' to the worker process of environment {}: it is no longer running "
                       "(exit code {})".format(cmd, index, self.processes[index].exitcode))
                self._broken = msg
                self._terminate()
                raise EnvWorkerError(msg) from err

    # ------------------------------------------------------------------------------------------
    # VecEnv API
    # ------------------------------------------------------------------------------------------
    def step_async(self, actions):
        self._check_usable()
        if len(actions) != self.num_envs:
            raise ValueError("SubprocVecEnv.step expected one action per environment ({}), got {} actions"
                             .format(self.num_envs, len(actions)))
        self._send(range(self.num_envs), 'step', per_env_data=list(actions))
        self.waiting = True

    def step_wait(self):
        self._check_usable()
        if not self.waiting:
            raise RuntimeError("SubprocVecEnv.step_wait() called without a pending step_async(actions)")
        try:
            results = self._receive_all(range(self.num_envs), "step")
        finally:
            self.waiting = False
        obs, rews, dones, infos = zip(*results)
        return (_flatten_obs(obs, self.observation_space), np.asarray(rews, dtype=np.float32),
                np.asarray(dones, dtype=bool), list(infos))

    def seed(self, seed=None):
        self._check_usable()
        if seed is None:
            seed = random_seed()
        self._send(range(self.num_envs), 'seed', per_env_data=[seed + idx for idx in range(self.num_envs)])
        return self._receive_all(range(self.num_envs), "seed")

    def reset(self):
        self._check_usable()
        if self.waiting:
            # cancel the pending step: collect (and drop) its results
            try:
                self._receive_all(range(self.num_envs), "step")
            finally:
                self.waiting = False
        self._send(range(self.num_envs), 'reset')
        obs, reset_infos = zip(*self._receive_all(range(self.num_envs), "reset"))
        self.reset_infos = list(reset_infos)
        return _flatten_obs(obs, self.observation_space)

    def close(self):
        if self.closed:
            return
        if self._broken is None:
            try:
                if self.waiting:
                    self._receive_all(range(self.num_envs), "step")
                self._send(range(self.num_envs), 'close')
                self._receive_all(range(self.num_envs), "close")
            except Exception:  # pylint: disable=broad-except
                pass
        for process in self.processes:
            process.join(timeout=5.0)
        self._terminate()
        self.closed = True

    def _terminate(self):
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        for process in self.processes:
            process.join(timeout=5.0)
        for remote in self.remotes:
            try:
                remote.close()
            except OSError:
                pass

    def get_images(self) -> Sequence[np.ndarray]:
        self._check_usable()
        self._send(range(self.num_envs), 'render', 'rgb_array')
        return self._receive_all(range(self.num_envs), "render")

    def render(self, mode: str = 'human'):
        if self.num_envs == 1:
            self._check_usable()
            self._send([0], 'render', mode)
            return self._receive_all([0], "render")[0]
        return super().render(mode=mode)

    def get_attr(self, attr_name, indices=None):
        """Return attribute from vectorized environment (see base class)."""
        self._check_usable()
        indices = self._get_indices(indices)
        self._send(indices, 'get_attr', attr_name)
        return self._receive_all(indices, "get_attr('{}')".format(attr_name))

    def set_attr(self, attr_name, value, indices=None):
        """Set attribute inside vectorized environments (see base class)."""
        self._check_usable()
        indices = self._get_indices(indices)
        self._send(indices, 'set_attr', (attr_name, value))
        self._receive_all(indices, "set_attr('{}')".format(attr_name))

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        """Call instance methods of vectorized environments."""
        self._check_usable()
        indices = self._get_indices(indices)
        self._send(indices, 'env_method', (method_name, method_args, method_kwargs))
        return self._receive_all(indices, "env_method('{}')".format(method_name))

    def __del__(self):
        try:
            if not self.closed:
                self.close()
        except Exception:  # pylint: disable=broad-except
            pass


def _flatten_obs(obs, space):
    """
    Flatten observations, depending on the observation space.

    :param obs: (list<X> or tuple<X> where X is dict<ndarray>, tuple<ndarray> or ndarray) observations.
                A list or tuple of observations, one per environment.
                Each environment observation may be a NumPy array, or a dict or tuple of NumPy arrays.
    :return (OrderedDict<ndarray>, tuple<ndarray> or ndarray) flattened observations.
            A flattened NumPy array or an OrderedDict or tuple of flattened numpy arrays.
            Each NumPy array has the environment index as its first axis.
    """
    if not isinstance(obs, (list, tuple)) or len(obs) == 0:
        raise ValueError("expected a non-empty list of observations, got {!r}".format(obs))

    if isinstance(space, gym_compat.spaces.Dict):
        return OrderedDict([(k, np.stack([o[k] for o in obs]).astype(space.spaces[k].dtype, copy=False))
                            for k in space.spaces.keys()])
    if isinstance(space, gym_compat.spaces.Tuple):
        obs_len = len(space.spaces)
        return tuple(np.stack([o[i] for o in obs]).astype(space.spaces[i].dtype, copy=False) for i in range(obs_len))
    stacked = np.stack([np.asarray(o) for o in obs])
    if space.shape is not None and stacked.shape[1:] != tuple(space.shape):
        if stacked[0].size == int(np.prod(space.shape)):
            stacked = stacked.reshape((len(obs),) + tuple(space.shape))
        else:
            raise ValueError("The environments returned observations of shape {}, but the observation space {} "
                             "expects shape {}".format(stacked.shape[1:], space, space.shape))
    if space.dtype is not None:
        stacked = stacked.astype(space.dtype, copy=False)
    return stacked
