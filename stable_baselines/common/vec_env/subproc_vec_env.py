"""SubprocVecEnv: each environment lives in a process of its own."""
import multiprocessing
import os
import time
import traceback
from collections import OrderedDict
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from stable_baselines.common import env_worker, gym_compat
from stable_baselines.common.vec_env.base_vec_env import (VecEnv, VecEnvActions, VecEnvIndices, VecEnvObs, VecEnvStepReturn,
                                                          CloudpickleWrapper, actions_per_env, render_env)
from stable_baselines.common.vec_env.single_env import (call_env_method, check_same_spaces, get_env_attr,
                                                        has_env_attr, make_vec_env_member, random_seed, seed_env, set_env_attr,
                                                        step_env_auto_reset)
from stable_baselines.common.vec_env.util import is_nested, stack_obs

# how often (seconds) the parent checks that a worker it waits for is still alive
_POLL_INTERVAL = 0.1

# exit code of a worker that found the main script starting SubprocVecEnvs while it was being re-imported
_MISSING_GUARD_EXIT_CODE = 86

_CREATING = "creating the environment"

MISSING_GUARD_MESSAGE = (
    "SubprocVecEnv: the main script is not guarded by `if __name__ == \"__main__\":`. With the '{}' start method "
    "every worker process imports the main script again, so the code that creates the SubprocVecEnv must only run "
    "when the script is executed, not when it is imported. Put it (and the training code) under\n\n"
    "    if __name__ == \"__main__\":\n        ...\n\n"
    "or pass start_method='fork' (Linux and macOS only; not safe once TensorFlow sessions run threads).")


class EnvWorkerError(RuntimeError):
    """
    Raised in the parent process when an environment of a SubprocVecEnv raised an exception or its
    worker process died. The message names the environment index and includes the worker's traceback.
    """


def _answer(cmd: str, env: Any, data: Any, pending_seed: Optional[int]):
    """Carry out one command of the parent on the worker's environment; return (result, pending seed)."""
    if cmd == 'step':
        return step_env_auto_reset(env, data), pending_seed
    if cmd == 'reset':
        return gym_compat.reset_env(env, seed=pending_seed), None
    if cmd == 'seed':
        return seed_env(env, data)
    if cmd == 'render':
        return render_env(env, data), pending_seed
    if cmd == 'get_spaces':
        return (env.observation_space, env.action_space), pending_seed
    if cmd == 'env_method':
        name, args, kwargs = data
        return call_env_method(env, name, *args, **kwargs), pending_seed
    if cmd == 'get_attr':
        return get_env_attr(env, data), pending_seed
    if cmd == 'has_attr':
        return has_env_attr(env, data), pending_seed
    if cmd == 'set_attr':
        set_env_attr(env, data[0], data[1])
        return None, pending_seed
    raise NotImplementedError("The SubprocVecEnv worker has no command {!r}".format(cmd))


def _send_quietly(remote, message) -> bool:
    try:
        remote.send(message)
    except (BrokenPipeError, EOFError, OSError):
        return False
    return True


def _worker(remote, parent_remote, env_fn_wrapper, index):  # pragma: no cover - runs in the subprocess
    env_worker.mark_serving()
    parent_remote.close()
    try:
        env = make_vec_env_member(env_fn_wrapper.var, index)
    except BaseException:  # pylint: disable=broad-except
        _send_quietly(remote, ("__error__", _CREATING, traceback.format_exc()))
        remote.close()
        return
    remote.send(("ok", None))
    pending_seed = None
    while True:
        try:
            cmd, data = remote.recv()
        except (EOFError, KeyboardInterrupt, OSError):
            break
        if cmd == 'close':
            env.close()
            _send_quietly(remote, ("ok", None))
            break
        try:
            result, pending_seed = _answer(cmd, env, data, pending_seed)
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


def _refuse_while_bootstrapping(start_method: str) -> None:
    """
    A SubprocVecEnv created while this process is itself being started by multiprocessing means the main
    script creates it at import time (no ``if __name__ == "__main__":`` guard). A worker of ours then leaves
    quietly with a code its parent recognises (one clear error there instead of a traceback per worker);
    any other child gets the clear error.
    """
    if not env_worker.is_bootstrapping_child():
        return
    if env_worker.is_bootstrapping_worker():
        os._exit(_MISSING_GUARD_EXIT_CODE)  # pylint: disable=protected-access
    raise RuntimeError(MISSING_GUARD_MESSAGE.format(start_method))


def _default_start_method() -> str:
    # 'fork' is not safe once the parent runs threads (TensorFlow sessions do): use forkserver when available
    return 'forkserver' if 'forkserver' in multiprocessing.get_all_start_methods() else 'spawn'


# imported once by the forkserver, so that every worker forked from it starts with them (none imports TensorFlow)
_FORKSERVER_PRELOAD = ("numpy", "gymnasium", "cloudpickle")


def _warm_forkserver(context) -> None:
    """
    Ask the forkserver (if this process has not started it yet) to import numpy and gymnasium once, so that the
    workers forked from it do not each import them again. Modules the user asked it to preload are kept.
    """
    from multiprocessing import forkserver  # pylint: disable=import-outside-toplevel  (POSIX only)
    server = getattr(forkserver, "_forkserver", None)
    if server is None or getattr(server, "_forkserver_pid", None) is not None:
        return
    preload = list(getattr(server, "_preload_modules", None) or ["__main__"])
    context.set_forkserver_preload(preload + [name for name in _FORKSERVER_PRELOAD if name not in preload])


class SubprocVecEnv(VecEnv):
    """
    A VecEnv whose environments each run in a process of their own, so that expensive environments step
    in parallel. With more environments than CPU cores (and environments that compute rather than wait),
    the processes only take turns.

    The worker processes import neither TensorFlow nor the algorithms (unless the main script imports
    them at its top level), so they start in a fraction of a second.

    .. warning::

        The default start method is 'forkserver' where the platform has it (Linux, macOS), else 'spawn'
        (Windows): unlike 'fork', these are safe when the parent already runs threads (TensorFlow
        sessions, see issue #217), at the price of a slower start. Each worker imports the main script
        again, so its code must sit under ``if __name__ == "__main__":`` (a missing guard is reported as
        a clear error). Read the multiprocessing documentation for the details.

    If an environment raises an exception, or its process dies, the parent raises an
    :class:`EnvWorkerError` naming the environment index (with the worker's traceback) instead of hanging.

    :param env_fns: ([callable]) functions without arguments, each returning a new environment
    :param start_method: (str) how to start the processes: one of
        ``multiprocessing.get_all_start_methods()``. Default: 'forkserver' where available, else 'spawn'.
    """

    def __init__(self, env_fns: List[Callable[[], Any]], start_method: Optional[str] = None) -> None:
        if callable(env_fns) or not hasattr(env_fns, "__len__") or len(env_fns) == 0:
            raise TypeError("SubprocVecEnv expected a non-empty list of functions that create environments, got {!r}"
                            .format(env_fns))
        for index, env_fn in enumerate(env_fns):
            if not callable(env_fn):
                raise TypeError("SubprocVecEnv takes a list of functions that create environments; element {} is "
                                "{!r}".format(index, env_fn))
        n_envs = len(env_fns)
        self.waiting = False
        self.closed = False
        self._broken: Optional[str] = None
        self.reset_infos: List[Dict[str, Any]] = [{} for _ in range(n_envs)]
        if start_method is None:
            start_method = _default_start_method()
        if start_method not in multiprocessing.get_all_start_methods():
            # the first words are multiprocessing's own, as the original library let them through
            raise ValueError("cannot find context for {!r}: start_method must be one of {}"
                             .format(start_method, multiprocessing.get_all_start_methods()))
        self.start_method = start_method
        _refuse_while_bootstrapping(start_method)
        context = multiprocessing.get_context(start_method)
        if start_method == "forkserver":
            _warm_forkserver(context)
        pipes = [context.Pipe(duplex=True) for _ in range(n_envs)]
        self.remotes = tuple(parent_end for parent_end, _ in pipes)
        self.work_remotes = tuple(child_end for _, child_end in pipes)
        self.processes: List[multiprocessing.process.BaseProcess] = []
        for index, env_fn in enumerate(env_fns):
            # a daemon process ends with the parent, even if the parent crashes
            # every concrete context has Process; typeshed declares it on the subclasses of BaseContext only
            process = context.Process(  # type: ignore[attr-defined]
                target=_worker, name=env_worker.worker_name(index), daemon=True,
                args=(self.work_remotes[index], self.remotes[index], CloudpickleWrapper(env_fn), index))
            process.start()
            self.processes.append(process)
            self.work_remotes[index].close()

        try:
            self._receive_all(range(n_envs), _CREATING)
            self._send(range(n_envs), 'get_spaces')
            all_spaces = self._receive_all(range(n_envs), "get_spaces")
            check_same_spaces(all_spaces)
        except BaseException:
            self._terminate()
            self.closed = True
            raise
        observation_space, action_space = all_spaces[0]
        VecEnv.__init__(self, n_envs, observation_space, action_space)

    # ------------------------------------------------------------------------------------------
    # communication
    # ------------------------------------------------------------------------------------------
    def _check_usable(self) -> None:
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
            self._broken = self._death_message(index, what)
            raise EnvWorkerError(self._broken)

    def _death_message(self, index: int, what: str) -> str:
        """What to tell the user when the worker of environment ``index`` ended while ``what``."""
        process = self.processes[index]
        if what == _CREATING and process.exitcode == _MISSING_GUARD_EXIT_CODE:
            return MISSING_GUARD_MESSAGE.format(self.start_method)
        message = ("The worker process of environment {} (pid {}) died while {} (exit code {}). The environment "
                   "probably crashed the interpreter (segfault, os._exit, killed by a signal or out of memory)."
                   .format(index, process.pid, what, process.exitcode))
        if what == _CREATING and self.start_method != "fork":
            message += (" With the '{}' start method, a worker starts by importing the main script again and "
                        "unpickling the functions that create the environments: both must work in a fresh Python "
                        "process (see the worker's traceback above).".format(self.start_method))
        return message

    def _receive_all(self, indices: Sequence[int], what: str) -> List[Any]:
        """Collect the answers of the given workers (all of them, to keep the pipes in sync); raise the first error."""
        results: List[Any] = []
        errors = []
        died: Optional[EnvWorkerError] = None
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
            if cmd == _CREATING:
                self._terminate()
            raise EnvWorkerError("Environment {} raised an exception in its worker process during '{}'{}:\n{}"
                                 .format(index, cmd, others, trace))
        return results

    def _send(self, indices: Sequence[int], cmd: str, data: Any = None, per_env_data: Optional[Sequence[Any]] = None) -> None:
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
    def step_async(self, actions: VecEnvActions) -> None:
        self._check_usable()
        actions = actions_per_env(actions, self.num_envs, "SubprocVecEnv")
        self._send(range(self.num_envs), 'step', per_env_data=list(actions))
        self.waiting = True

    def step_wait(self) -> VecEnvStepReturn:
        self._check_usable()
        if not self.waiting:
            raise RuntimeError("SubprocVecEnv.step_wait() called without a pending step_async(actions)")
        try:
            results = self._receive_all(range(self.num_envs), "step")
        finally:
            self.waiting = False
        obs, rews, dones, infos = zip(*results)
        # rewards keep the envs' own type (float64 from Python floats), as the original's np.stack gave
        return (_flatten_obs(obs, self.observation_space), np.stack(rews),
                np.asarray(dones, dtype=bool), list(infos))

    def seed(self, seed: Optional[int] = None) -> List[Any]:
        self._check_usable()
        if seed is None:
            seed = random_seed()
        self._send(range(self.num_envs), 'seed', per_env_data=[seed + idx for idx in range(self.num_envs)])
        return self._receive_all(range(self.num_envs), "seed")

    def reset(self) -> VecEnvObs:
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

    def close(self) -> None:
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
        self._join_all(5.0)
        self._terminate()
        self.closed = True

    def _join_all(self, seconds: float) -> None:
        """Wait for the workers to end, ``seconds`` in all."""
        deadline = time.monotonic() + seconds
        for process in self.processes:
            process.join(timeout=max(0.0, deadline - time.monotonic()))

    def _terminate(self) -> None:
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        # the workers get 5 s in all to end; one that outlives SIGTERM (a forked child can inherit a handler for
        # it) is killed
        self._join_all(5.0)
        for process in self.processes:
            if process.is_alive():
                process.kill()
                process.join(timeout=1.0)
        for remote in self.remotes:
            try:
                remote.close()
            except OSError:
                pass

    def get_images(self) -> Sequence[np.ndarray]:
        self._check_usable()
        self._send(range(self.num_envs), 'render', 'rgb_array')
        return self._receive_all(range(self.num_envs), "render")

    def render(self, mode: str = 'human') -> Any:
        if self.num_envs == 1:
            self._check_usable()
            self._send([0], 'render', mode)
            return self._receive_all([0], "render")[0]
        return super().render(mode=mode)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> List[Any]:
        """Return attribute from vectorized environment (see base class)."""
        self._check_usable()
        targets = self._get_indices(indices)
        self._send(targets, 'get_attr', attr_name)
        return self._receive_all(targets, "get_attr('{}')".format(attr_name))

    def has_attr(self, attr_name: str) -> bool:
        """Whether the environments define an attribute, asked in the first worker (see base class)."""
        self._check_usable()
        self._send([0], 'has_attr', attr_name)
        return bool(self._receive_all([0], "has_attr('{}')".format(attr_name))[0])

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set attribute inside vectorized environments (see base class)."""
        self._check_usable()
        targets = self._get_indices(indices)
        self._send(targets, 'set_attr', (attr_name, value))
        self._receive_all(targets, "set_attr('{}')".format(attr_name))

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> List[Any]:
        """Call instance methods of vectorized environments."""
        self._check_usable()
        targets = self._get_indices(indices)
        self._send(targets, 'env_method', (method_name, method_args, method_kwargs))
        return self._receive_all(targets, "env_method('{}')".format(method_name))

    def __del__(self) -> None:
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

    if is_nested(space):
        return stack_obs(obs, space)
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
