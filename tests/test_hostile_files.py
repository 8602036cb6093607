"""
Hostile files: loading a file never runs code from it (DESIGN.md, Contracts 6).

Every payload is written by hand (``tests/hostile_payloads.py``: pickle opcodes, zip records, .npy headers).
Code-running payloads try to create ``sentinel`` (a file under ``tmp_path``); every test checks that it does not
exist after the call *and after* ``gc.collect()``, then that the failure is an ``InvalidModelFileError`` whose
message names the zip member or data key (and, for refused references, says ``custom_objects``).

Positive controls show that no test passes vacuously: the same bytes, read by plain ``pickle`` in a forked
child, do create the sentinel; normal saved models of every algorithm still load; legitimate functions still
work. Bombs run in a forked child (address space capped as a safety net) that reports elapsed time, the growth
of ``ru_maxrss`` and the peak of ``tracemalloc``.
"""
import copyreg
import functools
import gc
import io
import json
import os
import pickle
import resource
import select
import signal
import time
import tracemalloc
import traceback
import warnings
import zipfile
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import cloudpickle
import gymnasium
import numpy as np
import pytest

import hostile_payloads as hp
from hostile_payloads import (FALSE, NONE, PAYLOADS, TRUE, any_arity_callable, bag, dumps, glob, instance, lst,
                              s, sdict, serialized, write_file_via_our_logger)
from stable_baselines import A2C, DDPG, DQN, GAIL, HER, PPO2, SAC, TD3, TRPO
from stable_baselines.common import safe_pickle, save_util
from stable_baselines.common.bit_flipping_env import BitFlippingEnv
from stable_baselines.common.save_util import InvalidModelFileError
from stable_baselines.common.vec_env import DummyVecEnv, VecNormalize
from stable_baselines.gail import ExpertDataset

GIB = 2 ** 30
ALGOS = ["PPO2", "A2C", "DQN", "SAC", "TD3", "DDPG", "TRPO", "GAIL", "HER"]
CLASSES = {"PPO2": PPO2, "A2C": A2C, "DQN": DQN, "SAC": SAC, "TD3": TD3, "DDPG": DDPG, "TRPO": TRPO, "GAIL": GAIL,
           "HER": HER}
# per algorithm, an entry of `data` that legitimately holds a pickle (so the loader must unpickle it)
PICKLED_KEY = {"PPO2": "learning_rate", "A2C": "policy", "DQN": "observation_space", "SAC": "learning_rate",
               "TD3": "action_noise", "DDPG": "action_noise", "TRPO": "action_space", "GAIL": "expert_dataset",
               "HER": "goal_selection_strategy"}
ENV_IDS = {"PPO2": "CartPole-v1", "A2C": "CartPole-v1", "DQN": "CartPole-v1", "SAC": "Pendulum-v1",
           "TD3": "Pendulum-v1", "DDPG": "Pendulum-v1", "TRPO": "CartPole-v1", "GAIL": "CartPole-v1"}
KEY = "learning_rate"  # the data key used by the entry points that take a single pickle
PLACEHOLDER = "@@HOSTILE-ENTRY@@"


# ==========================================================================================================
# legitimate files, built once per module (and per xdist worker)
# ==========================================================================================================
def _expert_traj(n: int = 20) -> Dict[str, np.ndarray]:
    starts = np.zeros(n, dtype=bool)
    starts[0] = starts[n // 2] = True
    return dict(obs=np.zeros((n, 4), np.float32), actions=np.zeros((n, 1), np.int64), rewards=np.zeros(n),
                episode_returns=np.zeros(2), episode_starts=starts)


def _make_model(algo: str) -> Any:
    small = dict(net_arch=[8])
    layers = dict(layers=[8])
    if algo == "PPO2":
        return PPO2("MlpPolicy", "CartPole-v1", n_steps=16, nminibatches=1, noptepochs=1, policy_kwargs=small, seed=0)
    if algo == "A2C":
        return A2C("MlpPolicy", "CartPole-v1", n_steps=5, policy_kwargs=small, seed=0)
    if algo == "DQN":
        return DQN("MlpPolicy", "CartPole-v1", policy_kwargs=layers, buffer_size=100, learning_starts=10, seed=0)
    if algo == "SAC":
        return SAC("MlpPolicy", "Pendulum-v1", policy_kwargs=layers, buffer_size=100, learning_starts=10, seed=0)
    if algo == "TD3":
        return TD3("MlpPolicy", "Pendulum-v1", policy_kwargs=layers, buffer_size=100, learning_starts=10, seed=0)
    if algo == "DDPG":
        return DDPG("MlpPolicy", "Pendulum-v1", policy_kwargs=layers, buffer_size=100, seed=0)
    if algo == "TRPO":
        return TRPO("MlpPolicy", "CartPole-v1", timesteps_per_batch=32, policy_kwargs=small, seed=0)
    if algo == "GAIL":
        dataset = ExpertDataset(traj_data=_expert_traj(), verbose=0, batch_size=4)
        return GAIL("MlpPolicy", "CartPole-v1", dataset, timesteps_per_batch=32, hidden_size_adversary=8,
                    policy_kwargs=small, seed=0)
    if algo == "HER":
        return HER("MlpPolicy", BitFlippingEnv(4, continuous=False, max_steps=4), DQN, n_sampled_goal=2,
                   goal_selection_strategy="future", policy_kwargs=layers, buffer_size=100, learning_starts=10,
                   seed=0)
    raise KeyError(algo)


def make_env(algo: str) -> Any:
    if algo == "HER":
        return BitFlippingEnv(4, continuous=False, max_steps=4)
    return gymnasium.make(ENV_IDS[algo])


def sample_obs(model: Any) -> Any:
    space = model.observation_space
    if isinstance(space, gymnasium.spaces.Dict):
        return {name: np.asarray(sub.sample()) for name, sub in space.spaces.items()}
    return np.zeros(space.shape, dtype=space.dtype)


def _to_protocol2(legit_pkl: bytes, placeholder_key: str) -> bytes:
    """Our own (trusted) .pkl model file, re-pickled at protocol 2 (no frames) with a placeholder entry."""
    data, params = pickle.loads(legit_pkl)  # our own file, just written by save()
    data = dict(data)
    data[placeholder_key] = PLACEHOLDER
    try:
        raw = pickle.dumps((data, params), protocol=2)
    except Exception:  # pylint: disable=broad-except  # e.g. an object only cloudpickle handles
        raw = cloudpickle.dumps((data, params), protocol=2)
    assert raw.count(s(PLACEHOLDER)) == 1
    return raw


class Legit(object):
    """Legitimate files of each algorithm, created lazily (a worker builds only what its tests need)."""

    def __init__(self, folder: str):
        self.folder = folder
        self._models = {}
        self._zips = {}
        self._pkls = {}
        self._pkl2 = {}
        self._vecnorm = None

    def model(self, algo: str) -> Any:
        if algo not in self._models:
            model = _make_model(algo)
            self._models[algo] = model
            # the models stay for the whole module: keep them out of the collections the tests make after each
            # load (with nine TF graphs alive, a full collection costs ~0.15 s)
            gc.collect()
            gc.freeze()
            buffer = io.BytesIO()
            model.save(buffer)
            self._zips[algo] = buffer.getvalue()
            buffer = io.BytesIO()
            model.save(buffer, cloudpickle=True)
            self._pkls[algo] = buffer.getvalue()
        return self._models[algo]

    def zip(self, algo: str) -> bytes:
        self.model(algo)
        return self._zips[algo]

    def pkl(self, algo: str) -> bytes:
        self.model(algo)
        return self._pkls[algo]

    def pkl_with(self, algo: str, key: str, pickle_body: bytes) -> bytes:
        """The algorithm's .pkl file with entry ``key`` of its data replaced by the raw pickle ``pickle_body``."""
        if (algo, key) not in self._pkl2:
            self._pkl2[(algo, key)] = _to_protocol2(self.pkl(algo), key)
        return self._pkl2[(algo, key)].replace(s(PLACEHOLDER), hp.relocate_memo(pickle_body))

    def zip_with(self, algo: str, key: str, pickle_bytes: bytes) -> bytes:
        return hp.model_zip_with(self.zip(algo), {key: serialized(pickle_bytes)})

    def params(self, algo: str = "PPO2") -> "Dict[str, np.ndarray]":
        return self.model(algo).get_parameters()

    def npz_with_first(self, npy_bytes: bytes, algo: str = "PPO2") -> Tuple[bytes, List[str]]:
        """The parameters archive of ``algo`` with its first member replaced by ``npy_bytes``."""
        params = self.params(algo)
        names = list(params)
        members = [(names[0] + ".npy", npy_bytes)]
        for name in names[1:]:
            members.append((name + ".npy", npy(params[name])))
        return hp.zip_bytes(members), names

    def zip_with_parameters(self, parameters: bytes, algo: str = "PPO2") -> bytes:
        return hp.model_zip_with(self.zip(algo), replace={"parameters": parameters})

    def vecnormalize_file(self) -> bytes:
        if self._vecnorm is None:
            wrapper = VecNormalize(DummyVecEnv([lambda: gymnasium.make("CartPole-v1")]))
            wrapper.reset()
            path = os.path.join(self.folder, "vecnormalize.pkl")
            wrapper.save(path)
            with open(path, "rb") as file_handler:
                self._vecnorm = file_handler.read()
        return self._vecnorm


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.asarray(array), allow_pickle=False)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def legit(tmp_path_factory) -> Legit:
    files = Legit(str(tmp_path_factory.mktemp("legit")))
    yield files
    gc.unfreeze()


@pytest.fixture
def sentinel(tmp_path) -> str:
    return str(tmp_path / "PWNED.npy")


def cartpole_venv() -> DummyVecEnv:
    return DummyVecEnv([lambda: gymnasium.make("CartPole-v1")])


def write(folder: Any, name: str, content: bytes) -> str:
    path = os.path.join(str(folder), name)
    with open(path, "wb") as file_handler:
        file_handler.write(content)
    return path


# ==========================================================================================================
# checking outcomes
# ==========================================================================================================
class Outcome(NamedTuple):
    value: Any
    error_type: Optional[type]
    message: str
    is_invalid: bool
    is_unpickling: bool
    chain: List[str]


def attempt(action: Callable[[], Any]) -> Outcome:
    """Run ``action``; keep what the error says but drop its traceback (its frames would keep objects alive)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = action()
    except BaseException as err:  # pylint: disable=broad-except
        if isinstance(err, (KeyboardInterrupt, SystemExit)):
            raise
        chain = []
        link = err
        while link is not None and len(chain) < 10:
            chain.append(type(link).__name__)
            traceback.clear_frames(link.__traceback__)
            link = link.__cause__ or link.__context__
        outcome = Outcome(None, type(err), str(err)[:5000], isinstance(err, InvalidModelFileError),
                          isinstance(err, pickle.UnpicklingError), chain)
        del err, link
        return outcome
    return Outcome(value, None, "", False, False, [])


def exercise(value: Any, env: Any = None) -> None:
    """Use a wrongly accepted value the way the library would (predict, learn, call schedules, close...)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        candidates = []
        if isinstance(value, tuple):
            candidates.extend(value)
        else:
            candidates.append(value)
        for item in list(candidates):
            if isinstance(item, dict):
                candidates.extend(item.values())
        for item in candidates:
            if hasattr(item, "predict") and hasattr(item, "observation_space"):
                for step in (lambda: item.predict(sample_obs(item)),
                             lambda: item.set_env(env) if env is not None else None,
                             lambda: item.learn(8) if env is not None else None):
                    try:
                        step()
                    except Exception:  # pylint: disable=broad-except
                        pass
            elif isinstance(item, VecNormalize):
                for step in (item.reset, lambda: item.step(np.zeros(item.num_envs, dtype=np.int64))):
                    try:
                        step()
                    except Exception:  # pylint: disable=broad-except
                        pass
            elif callable(item) and not isinstance(item, type):
                for args in ((), (1.0,)):
                    try:
                        item(*args)
                    except Exception:  # pylint: disable=broad-except
                        pass
            for method in ("close", "reset", "init_dataloader"):
                if not isinstance(item, type) and callable(getattr(item, method, None)):
                    try:
                        getattr(item, method)(*((4,) if method == "init_dataloader" else ()))
                    except Exception:  # pylint: disable=broad-except
                        pass


def assert_refused(action: Callable[[], Any], sentinel: str, names: Sequence[str] = (), names_any: Sequence[str] = (),
                   reference: bool = False, allow_success: bool = False, env: Any = None,
                   inspect: Optional[Callable[[Any], List[str]]] = None) -> Outcome:
    """
    ``action`` must raise InvalidModelFileError naming ``names`` (all) / ``names_any`` (one of them), and
    -- with ``reference`` -- be a pickle.UnpicklingError that mentions custom_objects. The sentinel must not exist,
    neither right after the call nor after garbage collection. With ``allow_success``, a successful load is also
    fine provided ``inspect(value)`` finds no problem and using the value runs nothing from the file.
    """
    outcome = attempt(action)
    live_at_load = os.path.exists(sentinel)
    value, outcome = outcome.value, outcome._replace(value=None)
    value_type = type(value).__name__
    problems = inspect(value) if inspect is not None and outcome.error_type is None else []
    latent = False
    if outcome.error_type is None and not live_at_load:
        exercise(value, env)
        latent = os.path.exists(sentinel)
    del value
    gc.collect()  # cheap: the legitimate models are frozen (see Legit.model)
    live_after_gc = os.path.exists(sentinel) and not (live_at_load or latent)
    assert not live_at_load, "LIVE EXPLOIT: loading ran code from the file (sentinel created); outcome: {}: {}".format(
        outcome.error_type, outcome.message[:300])
    assert not live_after_gc, "LIVE EXPLOIT at garbage collection (sentinel created by __del__); outcome: {}: {}".format(
        outcome.error_type, outcome.message[:300])
    if outcome.error_type is None:
        if allow_success:
            assert not latent, "the loaded value ran code from the file when used"
            assert not problems, "accepted, and the loaded value is not inert: {}".format(problems)
            return outcome
        pytest.fail("accepted: loading returned a {}{}".format(
            value_type, " -- and USING it ran code from the file (sentinel created)" if latent else ""))
    assert outcome.is_invalid, "expected InvalidModelFileError, got {} (chain {}): {}".format(
        outcome.error_type.__name__, outcome.chain, outcome.message[:500])
    for name in names:
        assert name in outcome.message, "the message does not name {!r}: {}".format(name, outcome.message[:500])
    if names_any:
        assert any(name in outcome.message for name in names_any), "the message names none of {}: {}".format(
            list(names_any), outcome.message[:500])
    if reference:
        assert outcome.is_unpickling, "a refused reference must also be a pickle.UnpicklingError, got {}".format(
            outcome.error_type.__mro__)
        assert "custom_objects" in outcome.message, "the message does not mention custom_objects: {}".format(
            outcome.message[:500])
    return outcome


# ==========================================================================================================
# the contract's exception types
# ==========================================================================================================
def test_invalid_model_file_error_is_value_and_runtime_error():
    assert issubclass(InvalidModelFileError, ValueError)
    assert issubclass(InvalidModelFileError, RuntimeError)
    refusal = getattr(safe_pickle, "SafeUnpicklingError", None) or getattr(save_util, "SafeUnpicklingError", None)
    assert refusal is not None
    assert issubclass(refusal, InvalidModelFileError) and issubclass(refusal, pickle.UnpicklingError)


# ==========================================================================================================
# positive controls: the payloads are live outside our loader
# ==========================================================================================================
def _measure_in_child(prepare: Callable[[], Callable[[], Any]], timeout: float, trace: bool,
                      address_space_margin: int = 6 * GIB) -> Dict[str, Any]:
    """
    Fork; in the child, ``prepare()`` (not measured) gives the action, which runs with the address space capped at
    the current size + ``address_space_margin`` (a safety net for this machine, not the limit under test).
    Returns elapsed seconds, growth of ru_maxrss (bytes), tracemalloc peak (bytes) and what was raised.
    """
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        report = {}
        try:
            os.close(read_fd)
            action = prepare()
            with open("/proc/self/status") as status:
                vm_size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
            _, hard = resource.getrlimit(resource.RLIMIT_AS)
            limit = vm_size + address_space_margin
            resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
            rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
            if trace:
                tracemalloc.start()
            start = time.monotonic()
            outcome = attempt(action)
            report["elapsed"] = time.monotonic() - start
            report["traced_peak"] = tracemalloc.get_traced_memory()[1] if trace else 0
            tracemalloc.stop()
            report["rss_increase"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - rss_before
            report["error"] = None if outcome.error_type is None else outcome.error_type.__name__
            report["is_invalid"] = outcome.is_invalid
            report["message"] = outcome.message[:2000]
            report["chain"] = outcome.chain
        except BaseException as err:  # pylint: disable=broad-except
            report["harness_error"] = repr(err)[:2000]
        try:
            os.write(write_fd, json.dumps(report).encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    chunks = []
    deadline = time.monotonic() + timeout
    timed_out = False
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([read_fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(read_fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_fd)
        if timed_out:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if timed_out:
        return {"timeout": True, "elapsed": timeout}
    if not chunks:
        return {"crashed": True, "status": status}
    return json.loads(b"".join(chunks).decode())


def _read(path: str) -> bytes:
    with open(path, "rb") as file_handler:
        return file_handler.read()


def _plain_pickle_effect(data: bytes, live: str) -> Callable[[], None]:
    def action() -> None:
        if live == "extension":
            copyreg.add_extension("os", "system", hp.EXTENSION_CODE)
        obj = pickle.loads(data)
        if live.startswith("call"):
            try:
                obj(*([None] * int(live[4:])))
            except Exception:  # pylint: disable=broad-except  # the effect happens before any error
                pass
        elif live == "close":
            obj.close()
        del obj
        gc.collect()
    return action


def _safe_load_path(path: str) -> Any:
    with open(path, "rb") as file_handler:
        return safe_pickle.safe_load(file_handler, key=KEY)


def _prepare(request: Dict[str, Any]) -> Callable[[], Any]:
    """What a child of the isolation process runs: built from a JSON request (action name + file path)."""
    action, path = request["action"], request.get("path")
    if action == "plain_pickle_effect":
        return _plain_pickle_effect(_read(path), request["live"])
    if action == "plain_pickle_call":
        data = _read(path)
        return lambda: pickle.loads(data)(0.5)
    if action == "plain_pickle_loads":
        data = _read(path)
        return lambda: len(pickle.loads(data))
    if action == "safe_loads":
        data = _read(path)
        return lambda: safe_pickle.safe_loads(data, key=KEY)
    if action == "safe_load[file]":
        return lambda: _safe_load_path(path)
    if action == "json_to_data":
        text = _read(path).decode("utf-8")
        return lambda: save_util.json_to_data(text)
    if action == "bytes_to_params":
        data = _read(path)
        return lambda: save_util.bytes_to_params(data, request["names"])
    if action == "VecNormalize.load":
        venv = cartpole_venv()
        return lambda: VecNormalize.load(path, venv)
    if action == "load_running_average":
        wrapper = VecNormalize(cartpole_venv())
        return lambda: wrapper.load_running_average(path)
    if action == "ExpertDataset":
        return lambda: ExpertDataset(expert_path=path, verbose=0)
    if action == "load_parameters":
        model = _make_model("PPO2")
        return lambda: model.load_parameters(path)
    if action.endswith(".load"):
        return lambda: CLASSES[action[:-len(".load")]].load(path)
    functions = {"load_from_zip": save_util.load_from_zip, "load_from_pkl": save_util.load_from_pkl,
                 "load_model_file": save_util.load_model_file}
    return lambda: functions[action](path)


def _serve(response_fd: int) -> None:
    """
    The isolation process: it imports the library but never starts TensorFlow (forking a process whose TF
    runtime has threads would deadlock the children), then forks one child per request read from stdin.
    """
    import sys  # pylint: disable=import-outside-toplevel
    responses = os.fdopen(response_fd, "w")
    for line in sys.stdin:
        request = json.loads(line)
        report = _measure_in_child(lambda: _prepare(request), request["timeout"], request["trace"])
        responses.write(json.dumps(report) + "\n")
        responses.flush()


class Isolator(object):
    """Runs actions in fresh forked children of a helper process (see :func:`_serve`)."""

    def __init__(self) -> None:
        import subprocess  # pylint: disable=import-outside-toplevel
        import sys  # pylint: disable=import-outside-toplevel
        read_fd, write_fd = os.pipe()
        tests_dir = os.path.dirname(os.path.abspath(__file__))
        code = "import sys; sys.path.insert(0, {!r}); import test_hostile_files as t; t._serve({})".format(
            tests_dir, write_fd)
        self.process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(write_fd,),
                                        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"), text=True)
        os.close(write_fd)
        self.responses = os.fdopen(read_fd, "r")

    def run(self, action: str, path: Optional[str] = None, timeout: float = 20.0, trace: bool = True,
            **params: Any) -> Dict[str, Any]:
        request = dict(params, action=action, path=path, timeout=timeout, trace=trace)
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.responses.readline()
        if not line:
            raise RuntimeError("the isolation process died (exit code {})".format(self.process.poll()))
        return json.loads(line)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)
        self.responses.close()


@pytest.fixture(scope="module")
def isolator() -> Isolator:
    runner = Isolator()
    yield runner
    runner.close()


LIVE_PAYLOADS = [payload for payload in PAYLOADS if payload.live]


@pytest.mark.parametrize("payload", LIVE_PAYLOADS, ids=[payload.name for payload in LIVE_PAYLOADS])
def test_payload_is_live_under_plain_pickle(payload, isolator, tmp_path, sentinel):
    """Control: ``pickle.loads`` of the same bytes (then calling / collecting the object) creates the sentinel."""
    path = write(tmp_path, "payload.pkl", payload.build(sentinel, str(tmp_path)))
    report = isolator.run("plain_pickle_effect", path, timeout=60, trace=False, live=payload.live)
    assert os.path.exists(sentinel), "payload {} is not live under plain pickle: {}".format(payload.name, report)


# ==========================================================================================================
# every code-running payload through every entry point that reads it
# ==========================================================================================================
class EntryPoint(NamedTuple):
    name: str
    kind: str  # what the payload is placed in: raw / json / zip / pkl / npz / expert
    algo: Optional[str]
    run: Callable[..., Any]  # run(legit, path_or_bytes) -> value


def _load(algo: str, file_kind: str = "path") -> Callable[[Legit, str], Any]:
    def run(_legit: Legit, path: str) -> Any:
        if file_kind == "file":
            with open(path, "rb") as file_handler:
                return CLASSES[algo].load(file_handler)
        return CLASSES[algo].load(path)
    return run


def _load_parameters(file_kind: str) -> Callable[[Legit, str], Any]:
    def run(legit_files: Legit, path: str) -> Any:
        model = legit_files.model("PPO2")
        if file_kind == "file":
            with open(path, "rb") as file_handler:
                return model.load_parameters(file_handler)
        return model.load_parameters(path)
    return run


def _safe_load_file(_legit: Legit, path: str) -> Any:
    with open(path, "rb") as file_handler:
        return safe_pickle.safe_load(file_handler, key=KEY)


def _safe_loads(_legit: Legit, path: str) -> Any:
    with open(path, "rb") as file_handler:
        return safe_pickle.safe_loads(file_handler.read(), key=KEY)


def _vecnormalize_load(_legit: Legit, path: str) -> Any:
    return VecNormalize.load(path, cartpole_venv())


def _load_running_average(_legit: Legit, path: str) -> Any:
    folder = os.path.dirname(path)
    target = os.path.join(folder, "obs_rms.pkl")
    if path != target:
        os.replace(path, target)
    wrapper = VecNormalize(cartpole_venv())
    wrapper.load_running_average(folder)
    return wrapper


def _json_to_data(_legit: Legit, path: str) -> Any:
    with open(path, "rb") as file_handler:
        return save_util.json_to_data(file_handler.read().decode("utf-8"))


def _load_from_zip(_legit: Legit, path: str) -> Any:
    return save_util.load_from_zip(path)


def _load_from_pkl(_legit: Legit, path: str) -> Any:
    return save_util.load_from_pkl(path)


def _load_model_file(_legit: Legit, path: str) -> Any:
    return save_util.load_model_file(path)


def _bytes_to_params(legit_files: Legit, path: str) -> Any:
    with open(path, "rb") as file_handler:
        return save_util.bytes_to_params(file_handler.read(), list(legit_files.params("PPO2")))


def _expert_dataset(_legit: Legit, path: str) -> Any:
    return ExpertDataset(expert_path=path, verbose=0)


ENTRY_POINTS: List[EntryPoint] = (
    [EntryPoint("safe_loads", "raw", None, _safe_loads),
     EntryPoint("safe_load[file]", "raw", None, _safe_load_file),
     EntryPoint("VecNormalize.load", "raw", None, _vecnormalize_load),
     EntryPoint("load_running_average", "raw", None, _load_running_average),
     EntryPoint("json_to_data", "json", None, _json_to_data),
     EntryPoint("load_from_zip", "zip", "PPO2", _load_from_zip),
     EntryPoint("load_model_file[zip]", "zip", "PPO2", _load_model_file)]
    + [EntryPoint("{}.load[zip]".format(algo), "zip", algo, _load(algo)) for algo in ALGOS]
    + [EntryPoint("load_parameters[zip path]", "zip", "PPO2", _load_parameters("path")),
       EntryPoint("load_parameters[zip file]", "zip", "PPO2", _load_parameters("file")),
       EntryPoint("load_from_pkl", "pkl", "PPO2", _load_from_pkl),
       EntryPoint("load_model_file[pkl]", "pkl", "PPO2", _load_model_file)]
    + [EntryPoint("{}.load[pkl]".format(algo), "pkl", algo, _load(algo)) for algo in ALGOS]
    + [EntryPoint("load_parameters[pkl]", "pkl", "PPO2", _load_parameters("path")),
       EntryPoint("bytes_to_params", "npz", None, _bytes_to_params),
       EntryPoint("load_from_zip[npz]", "npz-zip", "PPO2", _load_from_zip),
       EntryPoint("PPO2.load[npz]", "npz-zip", "PPO2", _load("PPO2")),
       EntryPoint("load_parameters[npz]", "npz-zip", "PPO2", _load_parameters("path")),
       EntryPoint("ExpertDataset", "expert", None, _expert_dataset)])


def place(legit_files: Legit, entry: EntryPoint, pickle_bytes: bytes, folder: str) -> Tuple[str, List[str]]:
    """Write the file that puts ``pickle_bytes`` where ``entry`` reads it; returns (path, names the error must name)."""
    if entry.kind == "raw":
        return write(folder, "obs_rms.pkl" if entry.run is _load_running_average else "payload.pkl", pickle_bytes), \
            (["obs_rms"] if entry.run is _load_running_average else [KEY] if "safe_load" in entry.name else [])
    if entry.kind == "json":
        return write(folder, "data.json", json.dumps({KEY: serialized(pickle_bytes)}).encode()), [KEY]
    if entry.kind == "zip":
        key = PICKLED_KEY[entry.algo] if entry.algo != "PPO2" or ".load" in entry.name else KEY
        return write(folder, "model.zip", legit_files.zip_with(entry.algo, key, pickle_bytes)), [key]
    if entry.kind == "pkl":
        key = PICKLED_KEY[entry.algo]
        return write(folder, "model.pkl", legit_files.pkl_with(entry.algo, key, hp.pickle_body(pickle_bytes))), [key]
    npz, names = legit_files.npz_with_first(hp.npy_object_array(pickle_bytes))
    if entry.kind == "npz":
        return write(folder, "parameters.npz", npz), [names[0]]
    if entry.kind == "npz-zip":
        return write(folder, "model.zip", legit_files.zip_with_parameters(npz)), ["parameters"]
    if entry.kind == "expert":
        traj = _expert_traj()
        members = [("obs.npy", hp.npy_object_array(pickle_bytes))] + \
            [(name + ".npy", npy(value)) for name, value in traj.items() if name != "obs"]
        return write(folder, "expert.npz", hp.zip_bytes(members)), ["obs"]
    raise KeyError(entry.kind)


MODEL_FILE_ENTRIES = ("json", "zip", "pkl")
# objects of classes that have a converter (schedules, spaces, the expert dataset): a converter may refuse their
# unexpected fields as malformed (InvalidModelFileError) rather than as a refused reference
FIELD_VALIDATED = {"gadget_constant_function_holding_class", "newobj_gymnasium_space_with_gadget", "del_expert_dataset",
                   "del_expert_dataset_inside_refused_value"}
# refused by the opcode, before any entry of a .pkl stream is known
OPCODE_LEVEL = {"persistent_id", "extension_registry_os_system"}
# a bare reference to a class of an imported third-party module (nothing is called): it may be refused, or become
# an inert placeholder that raises when called (as a stored function does) -- never the class itself
BARE_THIRD_PARTY_CLASSES = {"third_party_class_pandas_expr", "third_party_class_h5py_file",
                            "third_party_class_requests_session"}


def _third_party_class_inspector(key: Optional[str]) -> Callable[[Any], List[str]]:
    """
    Problems with a loaded value that held a bare third-party class reference: the real class anywhere in it, or a
    placeholder (the value under ``key``) that does not raise RuntimeError mentioning custom_objects when called.
    """
    def inspect(value: Any) -> List[str]:
        found = []
        stack, seen = [(value, 0)], set()
        while stack:
            item, depth = stack.pop()
            if id(item) in seen or depth > 4:
                continue
            seen.add(id(item))
            if isinstance(item, type) and item.__module__.split(".")[0] in ("pandas", "h5py", "requests"):
                found.append("the real class {}.{}".format(item.__module__, item.__qualname__))
            elif isinstance(item, dict):
                stack.extend((child, depth + 1) for child in item.values())
            elif isinstance(item, (list, tuple)):
                stack.extend((child, depth + 1) for child in item)
            elif hasattr(item, "predict") and hasattr(item, "__dict__"):
                stack.extend((child, depth + 1) for child in vars(item).values())
        placed = value
        if isinstance(value, tuple) and value and isinstance(value[0], dict):
            placed = value[0].get(key)
        elif isinstance(value, dict):
            placed = value.get(key)
        elif hasattr(value, "predict"):
            placed = getattr(value, key, None)
        if callable(placed) and not isinstance(placed, type):
            try:
                placed(0.5)
                found.append("calling the placeholder {!r} did not raise".format(placed))
            except RuntimeError as err:
                if "custom_objects" not in str(err):
                    found.append("the placeholder's error does not mention custom_objects: {}".format(err))
            except Exception as err:  # pylint: disable=broad-except
                found.append("calling the placeholder raised {}: {}".format(type(err).__name__, err))
        return found
    return inspect


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=[entry.name for entry in ENTRY_POINTS])
@pytest.mark.parametrize("payload", PAYLOADS, ids=[payload.name for payload in PAYLOADS])
def test_code_payload_refused(payload, entry, legit, tmp_path, sentinel):
    data = payload.build(sentinel, str(tmp_path))
    path, names = place(legit, entry, data, str(tmp_path))
    registered = payload.live == "extension"
    if registered:
        copyreg.add_extension("os", "system", hp.EXTENSION_CODE)
    names_any: List[str] = []
    if payload.name in OPCODE_LEVEL:
        # refused for the opcode itself: naming the member is enough ("names the zip member ... or the data key"),
        # and a .pkl stream has no member to name
        names, names_any = [], ([] if entry.kind in ("pkl", "raw") else names + ["data"])
    bare_class = payload.name in BARE_THIRD_PARTY_CLASSES
    try:
        assert_refused(lambda: entry.run(legit, path), sentinel, names=names, names_any=names_any,
                       reference=(entry.kind in MODEL_FILE_ENTRIES or entry.name.startswith("safe_load"))
                       and payload.name not in FIELD_VALIDATED and payload.name not in OPCODE_LEVEL,
                       # load_parameters need not read `data`: a hostile entry there may be ignored
                       allow_success=entry.name.startswith("load_parameters[zip") or
                       (bare_class and entry.kind in ("raw", "json", "zip", "pkl")),
                       inspect=_third_party_class_inspector(names[0] if names else KEY) if bare_class else None,
                       env=make_env(entry.algo) if entry.algo else None)
    finally:
        if registered:
            copyreg.remove_extension("os", "system", hp.EXTENSION_CODE)


# ==========================================================================================================
# mechanism 4: entries of `data` named like methods / internals
# ==========================================================================================================
SHADOW_KEYS = [("setup_model", 0), ("load_parameters", 1), ("_setup_learn", 0), ("set_env", 1), ("predict", 1),
               ("get_parameter_list", 0), ("sess", None), ("graph", None), ("__class__", None), ("__dict__", None),
               ("learn", 1), ("save", 1), ("get_parameters", 0), ("action_probability", 1), ("_get_pretrain_placeholders", 0)]


def shadow_gadget(sentinel: str, arity: Optional[int]) -> bytes:
    if arity == 0:
        return dumps(write_file_via_our_logger(sentinel))
    if arity == 1:
        return dumps(any_arity_callable(write_file_via_our_logger(sentinel)))
    if arity is None:  # an object standing in for sess / graph / ...: every method is the gadget
        gadget = any_arity_callable(write_file_via_our_logger(sentinel))
        return dumps(bag(run=gadget, as_default=gadget, close=gadget, __enter__=gadget))
    raise ValueError(arity)


@pytest.mark.parametrize("key,arity", SHADOW_KEYS, ids=[key for key, _ in SHADOW_KEYS])
@pytest.mark.parametrize("algo", ALGOS)
def test_method_named_entry_refused_zip(algo, key, arity, legit, tmp_path, sentinel):
    path = write(tmp_path, "model.zip", hp.model_zip_with(legit.zip(algo), {key: serialized(shadow_gadget(sentinel, arity))}))
    assert_refused(lambda: CLASSES[algo].load(path), sentinel, names=[key], env=make_env(algo))


@pytest.mark.parametrize("key,arity", SHADOW_KEYS, ids=[key for key, _ in SHADOW_KEYS])
@pytest.mark.parametrize("algo", ALGOS)
def test_method_named_entry_refused_pkl(algo, key, arity, legit, tmp_path, sentinel):
    body = hp.pickle_body(shadow_gadget(sentinel, arity))
    path = write(tmp_path, "model.pkl", legit.pkl_with(algo, key, body))
    assert_refused(lambda: CLASSES[algo].load(path), sentinel, names=[key], env=make_env(algo))


@pytest.mark.parametrize("key", [key for key, _ in SHADOW_KEYS] + ["not_a_parameter_of_any_algorithm"])
@pytest.mark.parametrize("algo", ["PPO2", "DQN", "SAC"])
def test_method_named_or_unknown_plain_entry_refused(algo, key, legit, tmp_path, sentinel):
    """A plain JSON value under a method's name (or an unknown name) is refused too, naming the key."""
    path = write(tmp_path, "model.zip", hp.model_zip_with(legit.zip(algo), {key: 1}))
    assert_refused(lambda: CLASSES[algo].load(path), sentinel, names=[key])


VECNORMALIZE_SHADOW = [("set_venv", 1), ("step_wait", 0), ("normalize_obs", 1), ("normalize_reward", 1),
                       ("reset", 0), ("step_async", 1), ("get_original_obs", 0), ("__class__", None),
                       ("not_a_vecnormalize_field", None)]


def vecnormalize_with(legit_files: Legit, key: str, body: bytes) -> bytes:
    """The legitimate VecNormalize file, re-pickled at protocol 2 with an extra entry ``key`` in its state."""
    wrapper = pickle.loads(legit_files.vecnormalize_file())  # our own file
    wrapper.__dict__[key] = PLACEHOLDER
    raw = pickle.dumps(wrapper, protocol=2)
    assert raw.count(s(PLACEHOLDER)) == 1
    return raw.replace(s(PLACEHOLDER), hp.relocate_memo(body))


@pytest.mark.parametrize("key,arity", VECNORMALIZE_SHADOW, ids=[key for key, _ in VECNORMALIZE_SHADOW])
def test_vecnormalize_state_cannot_replace_methods(key, arity, legit, tmp_path, sentinel):
    body = hp.pickle_body(shadow_gadget(sentinel, arity))
    path = write(tmp_path, "vecnormalize.pkl", vecnormalize_with(legit, key, body))
    assert_refused(lambda: VecNormalize.load(path, cartpole_venv()), sentinel, names=[key])


def running_mean_std(shape: Tuple[int, ...] = (4,), **extra: bytes) -> bytes:
    """A RunningMeanStd pickled by hand (mean / var / count), with ``extra`` attributes."""
    size = int(np.prod(shape))
    return instance(hp.RUNNING_MEAN_STD, "RunningMeanStd", mean=hp.ndarray_f8([0.0] * size, shape),
                    var=hp.ndarray_f8([1.0] * size, shape), count=hp.f(1.0), **extra)


def test_hand_made_running_mean_std_is_accepted(tmp_path, sentinel):
    """Control for the next tests: the hand-made statistics without extras are a legitimate obs_rms.pkl."""
    write(tmp_path, "obs_rms.pkl", dumps(running_mean_std()))
    write(tmp_path, "ret_rms.pkl", dumps(running_mean_std(())))
    wrapper = VecNormalize(cartpole_venv())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapper.load_running_average(str(tmp_path))
    np.testing.assert_array_equal(wrapper.obs_rms.var, np.ones(4))
    wrapper.reset()
    wrapper.step(np.zeros(1, dtype=np.int64))


@pytest.mark.parametrize("method", ["update", "update_from_moments", "__class__"])
def test_running_statistics_cannot_carry_methods(method, legit, tmp_path, sentinel):
    gadget = any_arity_callable(write_file_via_our_logger(sentinel))
    write(tmp_path, "obs_rms.pkl", dumps(running_mean_std(**{method: gadget})))
    assert_refused(lambda: _load_running_average(legit, os.path.join(str(tmp_path), "obs_rms.pkl")), sentinel,
                   names=["obs_rms"])
    # and inside a VecNormalize file
    body = hp.pickle_body(dumps(running_mean_std(**{method: gadget})))
    path = write(tmp_path, "vecnormalize.pkl", vecnormalize_with(legit, "obs_rms", body))
    # a VecNormalize file has no members or data keys: the attribute (obs_rms) or the unexpected field
    assert_refused(lambda: VecNormalize.load(path, cartpole_venv()), sentinel, names_any=["obs_rms", method])


# ==========================================================================================================
# legitimate-looking objects carrying gadgets (the converters must validate fields)
# ==========================================================================================================
NOISE_ALGOS = ["TD3", "DDPG", "SAC"]


@pytest.mark.parametrize("fmt", ["zip", "pkl"])
@pytest.mark.parametrize("algo", NOISE_ALGOS)
def test_action_noise_cannot_carry_methods(algo, fmt, legit, tmp_path, sentinel):
    gadget = any_arity_callable(write_file_via_our_logger(sentinel))
    noise = instance("stable_baselines.common.noise", "NormalActionNoise", _mu=hp.ndarray_f8([0.0], (1,)),
                     _sigma=hp.ndarray_f8([0.1], (1,)), reset=write_file_via_our_logger(sentinel), __call__=gadget)
    if fmt == "zip":
        content = legit.zip_with(algo, "action_noise", dumps(noise))
    else:
        content = legit.pkl_with(algo, "action_noise", noise)
    path = write(tmp_path, "model." + fmt, content)
    assert_refused(lambda: CLASSES[algo].load(path), sentinel, names=["action_noise"], env=make_env(algo))


@pytest.mark.parametrize("algo", ALGOS)
def test_policy_kwargs_cannot_hold_callables_of_the_file(algo, legit, tmp_path, sentinel):
    """policy_kwargs['act_fun'] is called on a tensor while the graph is built: a one-argument gadget there runs."""
    gadget = any_arity_callable(write_file_via_our_logger(sentinel))
    kwargs = {"net_arch": [8]} if algo in ("PPO2", "A2C", "TRPO", "GAIL") else {"layers": [8]}
    body = hp.dct([(s(name), hp.lst(*[hp.i(v) for v in value])) for name, value in kwargs.items()] +
                  [(s("act_fun"), gadget)])
    path = write(tmp_path, "model.zip", legit.zip_with(algo, "policy_kwargs", dumps(body)))
    assert_refused(lambda: CLASSES[algo].load(path), sentinel, names=["policy_kwargs"], env=make_env(algo))


@pytest.mark.parametrize("key", ["observation_space", "action_space"])
def test_space_fields_are_validated(key, legit, tmp_path, sentinel):
    """A gymnasium space whose state carries a method (``sample``): refused, or rebuilt without it."""
    space = getattr(legit.model("PPO2"), key)
    raw = pickle.dumps(space, protocol=2)
    gadget = any_arity_callable(write_file_via_our_logger(sentinel))
    hostile = raw[:-1] + sdict(sample=gadget, contains=gadget, seed=gadget) + pickle.BUILD + pickle.STOP
    path = write(tmp_path, "model.zip", legit.zip_with("PPO2", key, hostile))
    outcome = assert_refused(lambda: PPO2.load(path), sentinel, names=[key], allow_success=True)
    if outcome.error_type is None:
        model = PPO2.load(path)
        loaded = getattr(model, key)
        assert type(loaded) is type(space) and "sample" not in vars(loaded) and "contains" not in vars(loaded)
        loaded.sample()
        loaded.contains(loaded.sample())
        gc.collect()
        assert not os.path.exists(sentinel)


# ==========================================================================================================
# type checks of the accepted keys
# ==========================================================================================================
TYPE_CASES = [
    ("gamma", "0.99"), ("gamma", [0.99]), ("gamma", {"value": 0.99}),
    ("n_envs", "1"), ("n_envs", 1.5), ("seed", [1]), ("verbose", "loud"), ("n_cpu_tf_sess", {"x": 1}),
    ("policy_kwargs", 5), ("policy_kwargs", "net_arch"), ("policy_kwargs", [1, 2]),
    ("observation_space", 5), ("action_space", "Discrete(2)"), ("_vectorize_action", "yes"),
    ("learning_rate", "0.1"), ("learning_rate", [0.1]),
    ("policy", "stable_baselines.logger.JSONOutputFormat"),
    ("policy", serialized(dumps(glob(hp.LOGGER, "JSONOutputFormat")))),
    ("policy", serialized(dumps(glob("pandas.core.computation.expr", "Expr")))),
    ("policy", serialized(dumps(glob(hp.TF_UTIL, "GetFlat")))),
    ("policy_kwargs", serialized(dumps(sdict(net_arch=lst(s("x")))))),
    ("policy_kwargs", serialized(dumps(sdict(act_fun=glob(hp.LOGGER, "JSONOutputFormat"))))),
    ("observation_space", serialized(dumps(glob("gymnasium.spaces.box", "Box")))),
]
TYPE_CASE_IDS = ["gamma=str", "gamma=list", "gamma=dict", "n_envs=str", "n_envs=float", "seed=list", "verbose=str",
                 "n_cpu_tf_sess=dict", "policy_kwargs=int", "policy_kwargs=str", "policy_kwargs=list",
                 "observation_space=int", "action_space=str", "_vectorize_action=str", "learning_rate=str",
                 "learning_rate=list", "policy=dotted-name-str", "policy=our-logger-class",
                 "policy=pandas-Expr-class", "policy=our-GetFlat-class", "policy_kwargs=net_arch-of-str",
                 "policy_kwargs=act_fun-our-logger-class", "observation_space=Box-class-not-instance"]


@pytest.mark.parametrize("key,value", TYPE_CASES, ids=TYPE_CASE_IDS)
@pytest.mark.parametrize("algo", ["PPO2", "DQN", "SAC"])
def test_values_are_type_checked(algo, key, value, legit, tmp_path, sentinel):
    path = write(tmp_path, "model.zip", hp.model_zip_with(legit.zip(algo), {key: value}))
    assert_refused(lambda: CLASSES[algo].load(path), sentinel, names=[key])


# ==========================================================================================================
# functions stored by cloudpickle
# ==========================================================================================================
def _io_function(path: str) -> Callable[[float], float]:
    def schedule(progress):
        open(path, "w").close()
        return progress * 3e-4
    return schedule


DEFERRED = [("PPO2", "learning_rate"), ("PPO2", "cliprange"), ("SAC", "learning_rate"), ("TD3", "learning_rate")]


@pytest.mark.parametrize("fmt", ["zip", "pkl"])
@pytest.mark.parametrize("algo,key", DEFERRED, ids=["{}-{}".format(a, k) for a, k in DEFERRED])
def test_function_doing_io_is_deferred_and_never_run(algo, key, fmt, isolator, legit, tmp_path, sentinel):
    function_pickle = cloudpickle.dumps(_io_function(sentinel), protocol=2)
    # control: the stored function is live
    report = isolator.run("plain_pickle_call", write(tmp_path, "function.pkl", function_pickle), trace=False)
    assert os.path.exists(sentinel), "control failed: {}".format(report)
    os.remove(sentinel)

    if fmt == "zip":
        content = legit.zip_with(algo, key, function_pickle)
    else:
        content = legit.pkl_with(algo, key, hp.pickle_body(function_pickle))
    path = write(tmp_path, "model." + fmt, content)
    env = make_env(algo)
    outcome = attempt(lambda: CLASSES[algo].load(path, env=env))
    gc.collect()
    assert not os.path.exists(sentinel), "LIVE EXPLOIT: loading ran the stored function"
    assert outcome.error_type is None, "loading must succeed (the function is only run by learn): {}: {}".format(
        outcome.error_type, outcome.message[:500])
    model = outcome.value
    action, _ = model.predict(sample_obs(model), deterministic=True)
    assert model.action_space.contains(np.asarray(action).reshape(model.action_space.shape).astype(
        model.action_space.dtype))
    with pytest.raises(RuntimeError) as called:
        getattr(model, key)(0.5)
    assert key in str(called.value) and "custom_objects" in str(called.value)
    with pytest.raises(RuntimeError) as learning:
        model.learn(64)
    assert key in str(learning.value)
    gc.collect()
    assert not os.path.exists(sentinel), "the stored function ran"


def _arithmetic_schedule(initial):
    def func(progress):
        return progress * initial
    return func


@pytest.mark.parametrize("function,expected", [
    (lambda frac: 2.5e-4 * frac, 1.25e-4),
    (_arithmetic_schedule(1e-3), 5e-4),
    (lambda frac: (frac - 0.5) * 2e-4 + 1e-4, 1e-4),
], ids=["lambda", "closure", "affine"])
def test_arithmetic_schedule_still_loads_and_works(function, expected, legit, tmp_path):
    """Control: pure-arithmetic stored functions are rebuilt (DESIGN.md Contracts 6) and give the same values."""
    path = write(tmp_path, "model.zip", legit.zip_with("PPO2", "learning_rate", cloudpickle.dumps(function)))
    model = PPO2.load(path, env=make_env("PPO2"))
    assert model.learning_rate(0.5) == pytest.approx(expected)
    model.learn(16)


# ==========================================================================================================
# positive controls: normal files still load
# ==========================================================================================================
@pytest.mark.parametrize("fmt", ["zip", "pkl"])
@pytest.mark.parametrize("algo", ALGOS)
def test_legitimate_model_loads(algo, fmt, legit, tmp_path):
    model = legit.model(algo)
    content = legit.zip(algo) if fmt == "zip" else legit.pkl(algo)
    path = write(tmp_path, "model." + fmt, content)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        loaded = CLASSES[algo].load(path)
    obs = sample_obs(model)
    np.testing.assert_allclose(loaded.predict(obs, deterministic=True)[0], model.predict(obs, deterministic=True)[0])
    for name, value in model.get_parameters().items():
        np.testing.assert_array_equal(loaded.get_parameters()[name], value)


def test_legitimate_parameters_only_zip_loads_parameters(legit, tmp_path):
    """A zip with only parameters / parameter_list is a legitimate input of load_parameters."""
    content = hp.model_zip_with(legit.zip("PPO2"), drop=["data"])
    path = write(tmp_path, "params.zip", content)
    model = _make_model("PPO2")
    model.load_parameters(path)
    with open(path, "rb") as file_handler:
        model.load_parameters(file_handler)
    for name, value in legit.params("PPO2").items():
        np.testing.assert_array_equal(model.get_parameters()[name], value)


def test_legitimate_vecnormalize_and_running_average_load(legit, tmp_path):
    path = write(tmp_path, "vecnormalize.pkl", legit.vecnormalize_file())
    wrapper = VecNormalize.load(path, cartpole_venv())
    wrapper.reset()
    # and the re-pickled copy used by the hostile tests, with a harmless extra field removed again
    original = pickle.loads(legit.vecnormalize_file())
    path2 = write(tmp_path, "vecnormalize2.pkl", pickle.dumps(original, protocol=2))
    VecNormalize.load(path2, cartpole_venv()).reset()


def test_legitimate_expert_dataset_loads(tmp_path):
    path = str(tmp_path / "expert.npz")
    np.savez(path, **_expert_traj())
    dataset = ExpertDataset(expert_path=path, verbose=0, batch_size=4)
    assert len(dataset.observations) == 20


@pytest.mark.parametrize("algo", ["PPO2", "SAC", "HER"])
def test_re_pickled_legitimate_pkl_loads(algo, legit, tmp_path):
    """Control for the .pkl injection: the protocol-2 copy with a legitimate value in the placeholder slot loads."""
    key = PICKLED_KEY[algo]
    data, _ = pickle.loads(legit.pkl(algo))
    body = hp.pickle_body(pickle.dumps(data[key], protocol=2))
    path = write(tmp_path, "model.pkl", legit.pkl_with(algo, key, body))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        loaded = CLASSES[algo].load(path)
    model = legit.model(algo)
    obs = sample_obs(model)
    np.testing.assert_allclose(loaded.predict(obs, deterministic=True)[0], model.predict(obs, deterministic=True)[0])


# ==========================================================================================================
# malformed / truncated / garbage files
# ==========================================================================================================
def _first_serialized(model_zip: bytes) -> Tuple[str, str]:
    data = json.loads(hp.read_zip_members(model_zip)["data"])
    for key, value in data.items():
        if isinstance(value, dict) and ":serialized:" in value:
            return key, value[":serialized:"]
    raise AssertionError("no serialized entry")


def _malformed_zips(base: bytes, params: Dict[str, np.ndarray]) -> Dict[str, Tuple[bytes, List[str]]]:
    """name -> (zip bytes, names the error may name (any of them))."""
    names = list(params)
    serialized_key, serialized_text = _first_serialized(base)
    import base64  # pylint: disable=import-outside-toplevel
    truncated_pickle = base64.b64encode(base64.b64decode(serialized_text)[:-7]).decode()

    def params_zip(members: List[Tuple[str, bytes]]) -> bytes:
        return hp.model_zip_with(base, replace={"parameters": hp.zip_bytes(members)})

    legit_members = [(name + ".npy", npy(value)) for name, value in params.items()]
    data_text = hp.read_zip_members(base)["data"].decode()
    huge_int = data_text.replace('"gamma": 0.99', '"gamma": 1' + "0" * 100000, 1)
    assert huge_int != data_text
    return {
        "only_junk_member": (hp.zip_bytes([("hello.txt", b"hello")]), ["data"]),
        "data_not_json": (hp.model_zip_with(base, data_text=b"{not json"), ["data"]),
        "data_not_utf8": (hp.model_zip_with(base, data_text=b"\xff\xfe{\x00}"), ["data"]),
        "data_json_list": (hp.model_zip_with(base, data_text=b"[1, 2]"), ["data"]),
        "data_json_string": (hp.model_zip_with(base, data_text=b'"data"'), ["data"]),
        "data_huge_integer": (hp.model_zip_with(base, data_text=huge_int.encode()), ["gamma", "data"]),
        "serialized_not_a_string": (hp.model_zip_with(base, {serialized_key: {":type:": "x", ":serialized:": 5}}),
                                    [serialized_key, "data"]),
        "serialized_bad_base64": (hp.model_zip_with(base, {serialized_key: {":type:": "x", ":serialized:": "!!@@"}}),
                                  [serialized_key, "data"]),
        "serialized_not_a_pickle": (hp.model_zip_with(base, {serialized_key: serialized(b"garbage, not a pickle")}),
                                    [serialized_key, "data"]),
        "serialized_truncated_pickle": (hp.model_zip_with(base, {serialized_key: {":type:": "x",
                                                                                  ":serialized:": truncated_pickle}}),
                                        [serialized_key, "data"]),
        "parameters_garbage": (hp.model_zip_with(base, replace={"parameters": b"garbage" * 10}), ["parameters"]),
        "parameters_single_npy": (hp.model_zip_with(base, replace={"parameters": npy(np.zeros(3))}), ["parameters"]),
        "parameters_missing_variable": (params_zip(legit_members[1:]), ["parameters", names[0]]),
        "parameters_wrong_shape": (params_zip([(names[0] + ".npy", npy(np.zeros(3)))] + legit_members[1:]),
                                   [names[0]]),
        "parameters_string_dtype": (params_zip([(names[0] + ".npy", npy(np.array(["abc"] * 3)))] + legit_members[1:]),
                                    [names[0], "parameters"]),
        "parameters_object_dtype": (params_zip([(names[0] + ".npy", hp.npy_object_array(dumps(hp.lst(hp.i(1)))))] +
                                               legit_members[1:]), ["parameters", names[0]]),
        "parameters_without_parameter_list": (hp.model_zip_with(base, drop=["parameter_list"]), ["parameter_list"]),
        "parameter_list_dict": (hp.model_zip_with(base, replace={"parameter_list": b'{"a": 1}'}), ["parameter_list"]),
        "parameter_list_ints": (hp.model_zip_with(base, replace={"parameter_list": b"[1, 2]"}), ["parameter_list"]),
        "parameter_list_string": (hp.model_zip_with(base, replace={"parameter_list": json.dumps(names[0]).encode()}),
                                  ["parameter_list"]),
        "parameter_list_nested": (hp.model_zip_with(base, replace={"parameter_list": json.dumps([names]).encode()}),
                                  ["parameter_list"]),
        "parameter_list_null": (hp.model_zip_with(base, replace={"parameter_list": b"null"}), ["parameter_list"]),
        "parameter_list_deep": (hp.model_zip_with(base, replace={"parameter_list": b"[" * 100000 + b"]" * 100000}),
                                ["parameter_list"]),
        "parameter_list_not_utf8": (hp.model_zip_with(base, replace={"parameter_list": b"\xff\xfe["}),
                                    ["parameter_list"]),
        "parameter_list_unknown_name": (hp.model_zip_with(base, replace={"parameter_list": json.dumps(
            names + ["model/not_there:0"]).encode()}), ["model/not_there:0"]),
    }


MALFORMED_NAMES = ["only_junk_member", "data_not_json", "data_not_utf8", "data_json_list", "data_json_string",
                   "data_huge_integer", "serialized_not_a_string", "serialized_bad_base64", "serialized_not_a_pickle",
                   "serialized_truncated_pickle", "parameters_garbage", "parameters_single_npy",
                   "parameters_missing_variable", "parameters_wrong_shape", "parameters_string_dtype",
                   "parameters_object_dtype", "parameters_without_parameter_list", "parameter_list_dict",
                   "parameter_list_ints", "parameter_list_string", "parameter_list_nested", "parameter_list_null",
                   "parameter_list_deep", "parameter_list_not_utf8", "parameter_list_unknown_name"]
ZIP_ENTRIES = [("PPO2.load", lambda path: PPO2.load(path)),
               ("load_from_zip", save_util.load_from_zip),
               ("load_model_file", save_util.load_model_file),
               ("load_parameters[path]", None),
               ("load_parameters[file]", None)]


@pytest.fixture(scope="module")
def malformed(legit) -> Dict[str, Tuple[bytes, List[str]]]:
    return _malformed_zips(legit.zip("PPO2"), legit.params("PPO2"))


@pytest.mark.parametrize("entry", [name for name, _ in ZIP_ENTRIES])
@pytest.mark.parametrize("case", MALFORMED_NAMES)
def test_malformed_zip_refused(case, entry, malformed, legit, tmp_path, sentinel):
    content, names = malformed[case]
    path = write(tmp_path, "model.zip", content)
    run = dict(ZIP_ENTRIES)[entry]
    data_only = case.startswith(("data_", "serialized_"))
    # load_from_zip / load_model_file do not know the model: shapes are checked when loading into one
    needs_model = case == "parameters_wrong_shape" and entry in ("load_from_zip", "load_model_file")
    if run is None:
        model = legit.model("PPO2")
        if entry.endswith("[file]"):
            def run(path_: str) -> Any:
                with open(path_, "rb") as file_handler:
                    return model.load_parameters(file_handler)
        else:
            run = model.load_parameters
    assert_refused(lambda: run(path), sentinel, names_any=names,
                   allow_success=(entry.startswith("load_parameters") and data_only) or needs_model)


@pytest.mark.parametrize("algo", ALGOS)
def test_zip_without_data_refused_by_load(algo, legit, tmp_path, sentinel):
    path = write(tmp_path, "model.zip", hp.model_zip_with(legit.zip(algo), drop=["data"]))
    assert_refused(lambda: CLASSES[algo].load(path), sentinel, names=["data"])


def _cut_points(size: int) -> List[int]:
    return sorted({0, 1, 2, 4, 30, size // 3, size // 2, size - 22, size - 1})


@pytest.mark.parametrize("fmt", ["zip", "pkl"])
@pytest.mark.parametrize("algo", ALGOS)
def test_truncated_model_files_refused(algo, fmt, legit, tmp_path, sentinel):
    content = legit.zip(algo) if fmt == "zip" else legit.pkl(algo)
    loaders = [("load", lambda path: CLASSES[algo].load(path)),
               ("load_model_file", save_util.load_model_file),
               ("load_from_" + fmt, save_util.load_from_zip if fmt == "zip" else save_util.load_from_pkl)]
    if algo == "PPO2":
        loaders.append(("load_parameters", legit.model("PPO2").load_parameters))
    failures = []
    for cut in _cut_points(len(content)):
        path = write(tmp_path, "model_{}.{}".format(cut, fmt), content[:cut])
        for name, loader in loaders:
            outcome = attempt(lambda: loader(path))
            if not outcome.is_invalid:
                failures.append("{} of the file cut at {} / {} bytes: {} {}".format(
                    name, cut, len(content), outcome.error_type.__name__ if outcome.error_type else "ACCEPTED",
                    outcome.message[:150]))
    gc.collect()
    assert not os.path.exists(sentinel)
    assert not failures, "\n".join(failures)


def _garbage() -> Dict[str, bytes]:
    rng = np.random.RandomState(0)
    return {
        "empty": b"",
        "text": b"hello, this is not a model\n",
        "json": json.dumps({"policy": "MlpPolicy", "gamma": 0.99}).encode(),
        "random": rng.bytes(4096),
        "zip_magic_then_random": b"PK\x03\x04" + rng.bytes(4096),
        "pickle_magic_then_random": b"\x80\x04" + rng.bytes(4096),
        "pickle_of_a_list": pickle.dumps([1, 2, 3], protocol=4),
        "pickle_stop_only": b"\x80\x04.",
        "npz": hp.zip_bytes([("obs.npy", npy(np.zeros(3)))]),
        "html": b"<!DOCTYPE html><html><body>404</body></html>",
    }


GARBAGE_NAMES = list(_garbage())


@pytest.mark.parametrize("name", GARBAGE_NAMES)
def test_garbage_refused_by_every_entry_point(name, legit, tmp_path, sentinel):
    content = _garbage()[name]
    failures = []
    path = write(tmp_path, "file.bin", content)
    checks = [("{}.load".format(algo), (lambda algo_: lambda: CLASSES[algo_].load(path))(algo)) for algo in ALGOS]
    checks += [("load_model_file", lambda: save_util.load_model_file(path)),
               ("load_from_zip", lambda: save_util.load_from_zip(path)),
               ("load_from_pkl", lambda: save_util.load_from_pkl(path)),
               ("load_parameters", lambda: legit.model("PPO2").load_parameters(path)),
               ("VecNormalize.load", lambda: VecNormalize.load(path, cartpole_venv())),
               ("safe_loads", lambda: safe_pickle.safe_loads(content)),
               ("json_to_data", lambda: save_util.json_to_data(content.decode("latin1"))),
               ("bytes_to_params", lambda: save_util.bytes_to_params(content, list(legit.params("PPO2"))))]
    rms_folder = tmp_path / "rms"
    rms_folder.mkdir()
    write(rms_folder, "obs_rms.pkl", content)
    checks.append(("load_running_average", lambda: VecNormalize(cartpole_venv()).load_running_average(str(rms_folder))))
    write(tmp_path, "expert.npz", content)
    checks.append(("ExpertDataset", lambda: ExpertDataset(expert_path=str(tmp_path / "expert.npz"), verbose=0)))
    for label, check in checks:
        if name == "npz" and label in ("bytes_to_params", "ExpertDataset"):
            continue  # a valid npz for those (only lacking names): checked below
        if name in ("json",) and label == "json_to_data":
            continue  # valid model data as far as JSON goes
        if name == "pickle_of_a_list" and label == "safe_loads":
            continue  # a valid pickle of plain data for the generic decoder
        outcome = attempt(check)
        if not outcome.is_invalid:
            failures.append("{}: {} {}".format(label, outcome.error_type.__name__ if outcome.error_type else "ACCEPTED",
                                               outcome.message[:200]))
    gc.collect()
    assert not os.path.exists(sentinel)
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("cut", [0.1, 0.5, 0.9])
def test_truncated_side_files_refused(cut, legit, tmp_path, sentinel):
    failures = []
    vecnorm = legit.vecnormalize_file()
    path = write(tmp_path, "vecnormalize.pkl", vecnorm[:int(len(vecnorm) * cut)])
    outcome = attempt(lambda: VecNormalize.load(path, cartpole_venv()))
    if not outcome.is_invalid:
        failures.append("VecNormalize.load: {} {}".format(outcome.error_type, outcome.message[:200]))
    rms = pickle.dumps(pickle.loads(vecnorm).obs_rms, protocol=4)
    folder = tmp_path / "rms"
    folder.mkdir()
    write(folder, "obs_rms.pkl", rms[:int(len(rms) * cut)])
    outcome = attempt(lambda: VecNormalize(cartpole_venv()).load_running_average(str(folder)))
    if not outcome.is_invalid:
        failures.append("load_running_average: {} {}".format(outcome.error_type, outcome.message[:200]))
    buffer = io.BytesIO()
    np.savez(buffer, **_expert_traj())
    expert = buffer.getvalue()
    path = write(tmp_path, "expert.npz", expert[:int(len(expert) * cut)])
    outcome = attempt(lambda: ExpertDataset(expert_path=path, verbose=0))
    if not outcome.is_invalid:
        failures.append("ExpertDataset: {} {}".format(outcome.error_type, outcome.message[:200]))
    assert not os.path.exists(sentinel)
    assert not failures, "\n".join(failures)


# ==========================================================================================================
# bombs (forked child; elapsed < 10 s, RSS growth < 2 GB, traced allocations < 2 GB)
# ==========================================================================================================
MAX_SECONDS = 10.0
MAX_BYTES = 2 * 10 ** 9


def assert_bounded(report: Dict[str, Any], names_any: Sequence[str] = (), allow_success: bool = False) -> None:
    assert not report.get("timeout"), "no answer within {} s (killed)".format(report.get("elapsed"))
    assert not report.get("crashed"), "the child died: {}".format(report)
    assert "harness_error" not in report, report
    assert report["elapsed"] < MAX_SECONDS, "took {:.1f} s: {}".format(report["elapsed"], report)
    assert report["rss_increase"] < MAX_BYTES, "peak RSS grew by {:.2f} GB: {}".format(report["rss_increase"] / 1e9,
                                                                                      report)
    assert report["traced_peak"] < MAX_BYTES, "allocated {:.2f} GB: {}".format(report["traced_peak"] / 1e9, report)
    assert "MemoryError" not in report["chain"], "the loader relied on an allocation failing: {}".format(report)
    if report["error"] is None and allow_success:
        return
    assert report["error"] is not None, "the bomb was accepted: {}".format(report)
    assert report["is_invalid"], "expected InvalidModelFileError, got {} ({}): {}".format(
        report["error"], report["chain"], report["message"][:500])
    if names_any:
        assert any(name in report["message"] for name in names_any), "the message names none of {}: {}".format(
            list(names_any), report["message"][:500])


PICKLE_BOMBS = list(hp.pickle_bombs())
HEADER_LEVEL_BOMBS = {"long4_declared_huge", "binbytes8_declared_huge", "binunicode8_declared_huge",
                      "bytearray8_declared_huge", "frame_declared_huge"}
# small values that only hurt a naive walk (or recursion)
STRUCTURAL_BOMBS = {"nested_lists_50k", "nested_tuples_50k", "nested_dicts_50k", "memo_tuples_2pow60",
                    "memo_lists_2pow60"}
GENERIC_DECODERS = {"safe_loads", "safe_load[file]", "json_to_data", "load_model_file[pkl]"}
PICKLE_BOMB_ENTRIES = ["safe_loads", "safe_load[file]", "load_model_file[pkl]", "VecNormalize.load",
                       "load_running_average", "json_to_data", "PPO2.load[zip]", "PPO2.load[pkl]"]


@pytest.fixture(scope="module")
def pickle_bombs() -> Dict[str, bytes]:
    return hp.pickle_bombs()


@pytest.mark.parametrize("entry", PICKLE_BOMB_ENTRIES)
@pytest.mark.parametrize("bomb", PICKLE_BOMBS)
def test_pickle_bomb_bounded(bomb, entry, pickle_bombs, isolator, legit, tmp_path):
    data = pickle_bombs[bomb]
    embedded = data if bomb in HEADER_LEVEL_BOMBS else None
    if entry in ("safe_loads", "safe_load[file]", "VecNormalize.load"):
        path, names = write(tmp_path, "bomb.pkl", data), ([KEY] if entry.startswith("safe_load") else [])
    elif entry == "load_running_average":
        write(tmp_path, "obs_rms.pkl", data)
        path, names = str(tmp_path), ["obs_rms"]
    elif entry == "json_to_data":
        path, names = write(tmp_path, "data.json", json.dumps({KEY: serialized(data)}).encode()), [KEY]
    elif entry == "PPO2.load[zip]":
        path, names = write(tmp_path, "bomb.zip", legit.zip_with("PPO2", KEY, data)), [KEY]
    else:  # a .pkl model file: the bomb is the file (header-level bombs) or its `learning_rate` entry
        content = embedded if embedded is not None else legit.pkl_with("PPO2", KEY, hp.pickle_body(data))
        path, names = write(tmp_path, "bomb.pkl", content), ([] if embedded is not None else [KEY])
    action = {"load_model_file[pkl]": "load_model_file", "PPO2.load[zip]": "PPO2.load",
              "PPO2.load[pkl]": "PPO2.load"}.get(entry, entry)
    # a generic decoder may return what it decoded, provided that stayed bounded (e.g. the None inside a frame
    # that only *declares* 4 GiB); model loaders must refuse
    assert_bounded(isolator.run(action, path, trace=bomb not in STRUCTURAL_BOMBS), names_any=names,
                   allow_success=entry in GENERIC_DECODERS)


DEFLATED_SIZE = 0xFF000000  # ~4 GiB, the largest multiple of 16 MiB without zip64


@functools.lru_cache(maxsize=None)
def deflated_npy_entry(name: str) -> hp.ZipEntry:
    """A valid .npy member (float32, ~4 GiB of zeros) deflated to ~4 MB."""
    return hp.deflate_bomb_entry(name, hp.npy_header_for_size("<f4", 4, DEFLATED_SIZE), DEFLATED_SIZE)


@pytest.fixture(scope="module")
def npz_bombs() -> Dict[str, Optional[bytes]]:
    """name -> .npy member content (None: the deflated member, built per name)."""
    return {
        "npy_header_declares_4gib": hp.npy_header("<f4", (2 ** 30,)) + b"\0" * 64,
        "npy_header_declares_4gib_fortran_2d": hp.npy_header("<f8", (2 ** 15, 2 ** 14), fortran=True) + b"\0" * 64,
        "npy_object_member_bytearray_bomb": hp.npy_object_array(hp.pickle_bombs()["bytearray_4gib"]),
        "npy_deflated_4gib": None,
    }


NPZ_BOMBS = ["npy_header_declares_4gib", "npy_header_declares_4gib_fortran_2d", "npy_object_member_bytearray_bomb",
             "npy_deflated_4gib"]
NPZ_ENTRIES = ["bytes_to_params", "load_from_zip", "PPO2.load", "load_parameters", "ExpertDataset"]


def _npz_with(first: str, member: Optional[bytes], others: Sequence[Tuple[str, bytes]]) -> bytes:
    bomb = deflated_npy_entry(first + ".npy") if member is None else hp.stored_entry(first + ".npy", member)
    return hp.raw_zip([bomb] + [hp.stored_entry(name, content) for name, content in others])


@pytest.mark.parametrize("entry", NPZ_ENTRIES)
@pytest.mark.parametrize("bomb", NPZ_BOMBS)
def test_npz_bomb_bounded(bomb, entry, npz_bombs, isolator, legit, tmp_path):
    member = npz_bombs[bomb]
    params = legit.params("PPO2")
    names_list = list(params)
    extra = {}
    if entry == "ExpertDataset":
        others = [(name + ".npy", npy(value)) for name, value in _expert_traj().items() if name != "obs"]
        path, names = write(tmp_path, "expert.npz", _npz_with("obs", member, others)), ["obs"]
    else:
        npz = _npz_with(names_list[0], member, [(name + ".npy", npy(params[name])) for name in names_list[1:]])
        if entry == "bytes_to_params":
            path, names = write(tmp_path, "parameters.npz", npz), [names_list[0]]
            extra["names"] = names_list
        else:
            path, names = write(tmp_path, "model.zip", legit.zip_with_parameters(npz)), ["parameters"]
    assert_bounded(isolator.run(entry, path, **extra), names_any=names)


@pytest.fixture(scope="module")
def zip_bombs(legit) -> Dict[str, Tuple[bytes, List[str]]]:
    """name -> (a PPO2 model zip one of whose members is a bomb, [the member's name])."""
    members = hp.read_zip_members(legit.zip("PPO2"))
    result = {}
    for member, prefix, fill in (("data", b"{", b" "), ("parameters", b"PK\x03\x04", b"\0"),
                                 ("parameter_list", b"[", b" ")):
        others = [hp.stored_entry(name, content) for name, content in members.items() if name != member]
        bomb = hp.deflate_bomb_entry(member, prefix, DEFLATED_SIZE, fill)
        result["{}_deflated_4gib".format(member)] = (hp.raw_zip([bomb] + others), [member])
        declared = hp.declared_entry(member, members[member][:64], 0xFFFFFFF0)
        result["{}_declares_4gib".format(member)] = (hp.raw_zip(others + [declared]), [member])
    return result


ZIP_BOMBS = ["data_deflated_4gib", "parameters_deflated_4gib", "parameter_list_deflated_4gib", "data_declares_4gib",
             "parameters_declares_4gib", "parameter_list_declares_4gib"]
ZIP_BOMB_ENTRIES = ["load_from_zip", "load_model_file", "PPO2.load", "load_parameters"]


def test_zip_bombs_are_live(zip_bombs, npz_bombs):
    """Control: the archives declare (and, for deflate, really inflate to) ~4 GiB."""
    for name in ZIP_BOMBS:
        content, (member, *_) = zip_bombs[name]
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            info = archive.getinfo(member)
            assert info.file_size >= 0xFF000000, name
            if name.endswith("deflated_4gib"):
                assert info.compress_size < 8 * 2 ** 20, name
                with archive.open(member) as stream:
                    chunk = stream.read(2 ** 26)  # the first 64 MiB really come out of ~64 KiB
                    assert len(chunk) == 2 ** 26
    with zipfile.ZipFile(io.BytesIO(_npz_with("w", npz_bombs["npy_deflated_4gib"], ()))) as archive:
        with archive.open("w.npy") as stream:
            assert np.lib.format.read_magic(stream) == (1, 0)
            shape, _, dtype = np.lib.format.read_array_header_1_0(stream)
            assert np.prod(shape) * dtype.itemsize >= 4 * 10 ** 9
    stream = io.BytesIO(npz_bombs["npy_header_declares_4gib"])
    assert np.lib.format.read_magic(stream) == (1, 0)
    shape, _, dtype = np.lib.format.read_array_header_1_0(stream)
    assert np.prod(shape) * dtype.itemsize == 4 * GIB


@pytest.mark.parametrize("entry", ZIP_BOMB_ENTRIES)
@pytest.mark.parametrize("bomb", ZIP_BOMBS)
def test_zip_bomb_bounded(bomb, entry, zip_bombs, isolator, tmp_path):
    content, names = zip_bombs[bomb]
    path = write(tmp_path, "model.zip", content)
    assert_bounded(isolator.run(entry, path), names_any=names,
                   # load_parameters need not read `data`
                   allow_success=entry == "load_parameters" and bomb.startswith("data_"))


def _json_bombs(base: bytes) -> Dict[str, Tuple[bytes, List[str]]]:
    data = json.loads(hp.read_zip_members(base)["data"])
    deep = "[" * 1000000 + "]" * 1000000
    nested_value = json.dumps(dict(data, policy_kwargs="@@")).replace('"@@"', '{"net_arch": ' + "[" * 200000 +
                                                                       "]" * 200000 + "}")
    many_keys = json.dumps(dict(data, **{"k{}".format(n): n for n in range(300000)}))
    return {
        "data_nested_1e6": (hp.model_zip_with(base, data_text=deep.encode()), ["data"]),
        "value_nested_2e5": (hp.model_zip_with(base, data_text=nested_value.encode()), ["policy_kwargs", "data"]),
        "data_300k_keys": (hp.model_zip_with(base, data_text=many_keys.encode()), ["k0", "k1", "data"]),
    }


@pytest.fixture(scope="module")
def json_bombs(legit) -> Dict[str, Tuple[bytes, List[str]]]:
    return _json_bombs(legit.zip("PPO2"))


@pytest.mark.parametrize("entry", ["json_to_data", "load_from_zip", "load_model_file", "PPO2.load"])
@pytest.mark.parametrize("bomb", ["data_nested_1e6", "value_nested_2e5", "data_300k_keys"])
def test_json_bomb_bounded(bomb, entry, json_bombs, isolator, tmp_path):
    content, names = json_bombs[bomb]
    if entry == "json_to_data":
        path = write(tmp_path, "data.json", hp.read_zip_members(content)["data"])
    else:
        path = write(tmp_path, "model.zip", content)
    report = isolator.run(entry, path, trace=bomb == "data_300k_keys")
    # json_to_data only decodes: 300k plain keys are not its business (load refuses the unknown keys)
    assert_bounded(report, names_any=names, allow_success=(entry in ("json_to_data", "load_from_zip",
                                                                     "load_model_file") and bomb == "data_300k_keys"))


VALUE_BOMBS = {
    # hyper-parameters of the right type whose size is allocated while the graph is built, before the parameters
    # archive could show they are wrong
    "policy_kwargs_net_arch_65536x2": {"policy_kwargs": {"net_arch": [65536, 65536]}},
    "lstm_policy_with_2pow33_envs": {"policy": serialized(dumps(glob("stable_baselines.common.policies",
                                                                     "MlpLstmPolicy"))),
                                     "n_envs": 2 ** 33, "nminibatches": 1},
}


@pytest.mark.parametrize("bomb", list(VALUE_BOMBS))
def test_hyper_parameter_sizes_bounded(bomb, isolator, legit, tmp_path):
    path = write(tmp_path, "model.zip", hp.model_zip_with(legit.zip("PPO2"), VALUE_BOMBS[bomb]))
    report = isolator.run("PPO2.load", path)
    assert_bounded(report, names_any=list(VALUE_BOMBS[bomb]) + ["parameters"])


def test_pickle_bombs_are_live(pickle_bombs, isolator, tmp_path):
    """Control: plain pickle really allocates what the bombs ask for (or walks forever)."""
    for name in ("numpy_reconstruct_giant_shape", "bytes_4gib"):
        report = isolator.run("plain_pickle_loads", write(tmp_path, name, pickle_bombs[name]))
        assert report["traced_peak"] >= 4 * GIB, report
    memo = pickle.loads(pickle_bombs["memo_tuples_2pow60"])
    depth = 0
    while isinstance(memo, tuple):
        assert memo[0] is memo[1]
        memo = memo[0]
        depth += 1
    assert depth == 60  # 2**60 leaves for a naive walk
    nested = pickle.loads(pickle_bombs["nested_lists_50k"])
    depth = 0
    while nested:
        nested = nested[0]
        depth += 1
    assert depth == 49999
