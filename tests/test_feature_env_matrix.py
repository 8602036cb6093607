"""
Features hold at their seams (contract 10 of DESIGN.md): every feature that reads the env, for every algorithm,
through every way a user hands over an env (tests/env_kinds.py), or a clear refusal.

One case is one algorithm on one env kind (and one observation kind: Box, or Dict for the algorithms with
MultiInputPolicy). It trains once with everything switched on — ``verbose=1`` (the logger table), ``progress_bar``
(the tqdm bar), a callback that reads the loop's variables as the original exposed them and an ``EvalCallback`` on an
env of the same kind (no warning) — then plays ``evaluate_policy`` on a matching env, saves with the training state
(the VecNormalize statistics in the file where the kind has a VecNormalize), resumes exactly (the saving model and
the loaded one, each on a fresh env of the same kind, end with the same parameters; on the kinds of
:data:`RESUME_KINDS`) and exports a SavedModel that acts as ``predict``.

The discrete task has invalid-action masks that exist once the env has been reset (the ordinary way to write them):
the algorithms that play it must use them and take no forbidden action, in training, evaluation and after the
resume. PPO2 and PPO1 play the continuous task here; their masks through the env kinds: tests/test_env_has_attr.py.

What cannot work is refused with an error naming what was expected and what was given: a VecEnv of several envs
for an algorithm that steps one env (and through ``set_env`` and ``load``), HER given a VecEnvWrapper or a Dict
observation that is not a goal observation, the export of VecNormalize statistics per entry of a Dict observation.
"""
import io
import json
import warnings
import zipfile
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Set

import gymnasium
import numpy as np
import pytest

from env_kinds import (ENV_IDS, EP_LEN, KINDS, VEC_KINDS, close_env, episode_length, forbidden_actions, make_env,
                       seed_env)
from stable_baselines import A2C, ACER, ACKTR, DQN, HER, PPO2, SAC, TD3
from stable_baselines.common.callbacks import BaseCallback, EvalCallback
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.gym_compat import seed_on_next_reset
from stable_baselines.common.model.training_state import STATE_MEMBER
from stable_baselines.common.structured_obs import is_structured_space, pack_batch
from stable_baselines.common.vec_env import VecEnv, VecNormalize
from test_export import assert_same_actions, load_saved_model, sample_observations

try:
    from stable_baselines import DDPG, GAIL, PPO1, TRPO
    from stable_baselines.gail import ExpertDataset
except ImportError:  # without mpi4py
    DDPG = GAIL = PPO1 = TRPO = ExpertDataset = None

TRAIN_STEPS = 160
CONTINUE_STEPS = 64
N_EVAL_EPISODES = 2
TINY = dict(layers=[8])
TINY_AC = dict(net_arch=[dict(pi=[8], vf=[8])])
OFF_POLICY = dict(learning_starts=20, buffer_size=300, batch_size=16)
RUNNER_LOCALS = {"self", "actions", "values", "clipped_actions", "rewards", "dones", "infos"}
SEGMENT_LOCALS = {"self", "observation", "action", "clipped_action", "reward", "true_reward", "done", "info",
                  "vpred", "cur_ep_ret", "ep_rets", "ep_lens", "step"}


def _expert(env: Any) -> Any:
    """:return: (ExpertDataset) expert transitions drawn from the observation and action spaces of ``env``"""
    space = env.observation_space
    space.seed(0)
    env.action_space.seed(0)
    n_steps = 4 * EP_LEN
    if isinstance(space, gymnasium.spaces.Dict):  # a structured dataset: one array per entry
        observations: Any = _dict_batch(space, n_steps)
    else:
        observations = np.stack([space.sample() for _ in range(n_steps)]).astype(np.float32)
    actions = np.stack([env.action_space.sample() for _ in range(n_steps)]).reshape(n_steps, -1)
    starts = np.arange(n_steps) % EP_LEN == 0
    return ExpertDataset(traj_data=dict(obs=observations, actions=actions, rewards=np.ones(n_steps),
                                        episode_returns=np.full(4, float(EP_LEN)), episode_starts=starts),
                         batch_size=16, verbose=0, sequential_preprocessing=True)


@dataclass
class Algorithm:
    """How the matrix builds one algorithm, and what its training shows."""

    name: str
    build: Callable[..., Any]  # (policy, env, **common keyword arguments) -> model
    task: str  # the task of env_kinds.TASKS its Box-observation case plays
    vectorized: bool  # steps a VecEnv of several envs
    step_locals: Set[str]  # variables a callback finds in self.locals after a step (as the original's loop had)
    table_key: str  # a key of the logger table its verbose=1 training prints
    multi_input: bool = True  # has MultiInputPolicy
    load_kwargs: Callable[[Any], Dict[str, Any]] = field(default=lambda env: {})


ALGORITHMS: List[Algorithm] = [
    Algorithm("A2C", lambda policy, env, **kw: A2C(policy, env, n_steps=8, policy_kwargs=TINY_AC, **kw),
              "discrete", True, RUNNER_LOCALS, "explained_variance"),
    Algorithm("ACER", lambda policy, env, **kw: ACER(policy, env, n_steps=8, buffer_size=200, replay_start=16,
                                                     policy_kwargs=TINY_AC, **kw),
              "discrete", True, {"self", "actions", "mus", "rewards", "dones", "obs"}, "explained_variance"),
    Algorithm("ACKTR", lambda policy, env, **kw: ACKTR(policy, env, n_steps=8, policy_kwargs=TINY_AC, **kw),
              "discrete", True, RUNNER_LOCALS, "policy_entropy"),
    Algorithm("PPO2", lambda policy, env, **kw: PPO2(policy, env, n_steps=16, nminibatches=2, noptepochs=2,
                                                     policy_kwargs=TINY_AC, **kw),
              # the original's PPO2 runner stepped into self.dones: no local of that name
              "continuous", True, RUNNER_LOCALS - {"dones"} | {"neglogpacs"}, "approxkl"),
    Algorithm("DQN", lambda policy, env, **kw: DQN(policy, env, policy_kwargs=TINY, target_network_update_freq=20,
                                                   **OFF_POLICY, **kw),
              "discrete", False, {"self", "action", "env_action", "new_obs", "rew", "done", "info", "obs",
                                  "episode_rewards", "update_eps"}, "% time spent exploring"),
    Algorithm("SAC", lambda policy, env, **kw: SAC(policy, env, policy_kwargs=TINY, **OFF_POLICY, **kw),
              "continuous", False, {"self", "action", "unscaled_action", "new_obs", "reward", "done", "info",
                                    "obs", "episode_rewards", "current_lr", "n_updates"}, "ent_coef"),
    Algorithm("TD3", lambda policy, env, **kw: TD3(policy, env, policy_kwargs=TINY, **OFF_POLICY, **kw),
              "continuous", False, {"self", "action", "unscaled_action", "new_obs", "reward", "done", "info",
                                    "obs", "episode_rewards", "current_lr", "n_updates"}, "n_updates"),
    Algorithm("HER", lambda policy, env, **kw: HER(policy, env, DQN, n_sampled_goal=2, policy_kwargs=TINY,
                                                   **OFF_POLICY, **kw),
              "goal", False, {"self", "action", "new_obs", "rew", "done", "info", "episode_rewards"},
              "success rate", multi_input=False),
]
if PPO1 is not None:
    ALGORITHMS += [
        Algorithm("PPO1", lambda policy, env, **kw: PPO1(policy, env, timesteps_per_actorbatch=32, optim_batchsize=16,
                                                         optim_epochs=2, policy_kwargs=TINY_AC, **kw),
                  "continuous", False, SEGMENT_LOCALS, "EpLenMean"),
        Algorithm("TRPO", lambda policy, env, **kw: TRPO(policy, env, timesteps_per_batch=32, vf_iters=1, cg_iters=3,
                                                         policy_kwargs=TINY_AC, **kw),
                  "discrete", False, SEGMENT_LOCALS, "EpLenMean"),
        Algorithm("GAIL", lambda policy, env, **kw: GAIL(policy, env, _expert(_spaces_of(env)), timesteps_per_batch=32,
                                                         vf_iters=1, cg_iters=3, g_step=1, d_step=1,
                                                         policy_kwargs=TINY_AC, **kw),
                  "discrete", False, SEGMENT_LOCALS, "EpTrueRewMean",
                  load_kwargs=lambda env: {"expert_dataset": _expert(_spaces_of(env))}),
        Algorithm("DDPG", lambda policy, env, **kw: DDPG(policy, env, nb_rollout_steps=16, nb_train_steps=4,
                                                         batch_size=16, buffer_size=300, policy_kwargs=TINY, **kw),
                  "continuous", False, {"self", "action", "q_value", "unscaled_action", "new_obs", "reward", "done",
                                        "info", "obs"}, "rollout/return"),
    ]
BY_NAME = {algorithm.name: algorithm for algorithm in ALGORITHMS}


def _spaces_of(env: Any) -> Any:
    """:return: (Any) something with the observation and action spaces the model of ``env`` will have"""
    return gymnasium.make(env) if isinstance(env, str) else env


class LocalsRecorder(BaseCallback):
    """Keeps the names the loop showed at its first and last step, and the training events."""

    def __init__(self) -> None:
        super().__init__()
        self.events: List[str] = []
        self.first_step: Set[str] = set()
        self.last_step: Set[str] = set()
        self.self_seen: Any = None

    def _on_training_start(self) -> None:
        self.events.append("training_start")

    def _on_step(self) -> bool:
        if self.n_calls == 1:
            self.first_step = set(self.locals)
            self.self_seen = self.locals.get("self")
        self.last_step = set(self.locals)
        return True

    def _on_training_end(self) -> None:
        self.events.append("training_end")


class Case:
    """One cell of the matrix: the envs it made (closed at the end) and how to make more of its kind."""

    def __init__(self, algorithm: Algorithm, kind: str, observations: str) -> None:
        self.algorithm, self.kind = algorithm, kind
        task = algorithm.task
        if observations == "dict":
            task = "dict" if task == "discrete" else "dict-continuous"
        self.task = task
        self.policy = "MultiInputPolicy" if observations == "dict" else "MlpPolicy"
        self.n_envs = 2 if algorithm.vectorized else 1
        self.masked = task == "discrete"  # the task whose env defines action_masks
        self.made: List[Any] = []
        self._eval_env: Any = None

    def env(self, seeded: bool = False) -> Any:
        """:return: (Any) a fresh env of the case's kind (seeded as a user seeds it before handing it over)"""
        env = make_env(self.kind, self.task, self.n_envs)
        self.made.append(env)
        return seed_env(env) if seeded else env

    def eval_env(self) -> Any:
        """:return: (Any) the evaluation env of the case, of the kind of the training env (an id: the env it names)"""
        if self._eval_env is None:
            if self.kind == "id":
                self._eval_env = gymnasium.make(ENV_IDS[self.task])
            else:
                self._eval_env = self.env()
            if isinstance(self._eval_env, VecNormalize):
                self._eval_env.training, self._eval_env.norm_reward = False, False
        return self._eval_env

    def close(self) -> None:
        for env in self.made:
            close_env(env)


# Dict observations go through the kinds whose path differs for them: the packing of the entries happens where the
# model takes the env (an env it made from an id, a single env behind the legacy adapter or gymnasium wrappers, a
# VecEnv whose workers send dicts through pipes, VecNormalize per entry, VecFrameStack per entry). A plain env, a
# Monitor and a bare DummyVecEnv are the inner layers of those cases and take no other path.
DICT_KINDS = ("id", "legacy", "gymnasium-wrappers", "SubprocVecEnv", "VecNormalize", "VecFrameStack")


# The resume (a second graph, half of a case's cost) runs where the kind adds something the file or the resumed
# training must carry: an env the model makes from an id, the legacy adapter, a Monitor, worker processes, the
# VecNormalize statistics, the frame stack. A plain env, gymnasium wrappers and a bare DummyVecEnv are inner layers
# of those cases, and tests/test_resume_new_process.py resumes every algorithm in a new process on gymnasium-made
# envs (a plain env under gymnasium's wrappers).
RESUME_KINDS = ("id", "legacy", "Monitor", "SubprocVecEnv", "VecNormalize", "VecFrameStack")


def _cases(observations: str) -> List[Any]:
    algorithms = [algorithm for algorithm in ALGORITHMS if observations == "box" or algorithm.multi_input]
    kinds = KINDS if observations == "box" else DICT_KINDS
    return [pytest.param(algorithm.name, kind, id="{}-{}".format(algorithm.name, kind))
            for algorithm in algorithms for kind in kinds]


def _refusal(case: Case) -> Optional[str]:
    """:return: (str) the message a combination that cannot work is refused with (None: it works)"""
    if case.algorithm.name == "HER" and case.kind in ("VecNormalize", "VecFrameStack"):
        return r"HER does not support VecEnvWrapper \(got {}\)".format(case.kind)
    return None


def _reseed(model: Any) -> None:
    """Seed the env a model made from an id (a user seeds it through ``get_env``), and its action space."""
    env = model.get_env()
    if isinstance(env, VecEnv):
        env.seed(7)
    else:
        seed_on_next_reset(env, 7)
    env.action_space.seed(7)


def _train_with_everything(case: Case, model: Any, capsys: Any, tmp_path: Any) -> None:
    """The first training: table, bar, callback locals and an EvalCallback on an env of the same kind."""
    recorder = LocalsRecorder()
    eval_callback = EvalCallback(case.eval_env(), n_eval_episodes=N_EVAL_EPISODES, eval_freq=40,
                                 log_path=str(tmp_path / "eval"), verbose=0)
    capsys.readouterr()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.learn(TRAIN_STEPS, callback=[recorder, eval_callback], log_interval=1, progress_bar=True)
    captured = capsys.readouterr()
    ours = [str(warning.message) for warning in caught
            if not issubclass(warning.category, DeprecationWarning) and "stable_baselines" in warning.filename]
    assert ours == [], ours

    # the logger table, above the bar
    assert case.algorithm.table_key in captured.out, captured.out[-2000:]
    assert "| " in captured.out and "%|" not in captured.out
    # the bar, drawn over the requested timesteps
    assert "/{}".format(TRAIN_STEPS) in captured.err, captured.err[-500:]
    # the callback: the loop's variables, as the original named them
    assert recorder.events == ["training_start", "training_end"]
    assert recorder.n_calls >= TRAIN_STEPS // case.n_envs // 2
    missing = case.algorithm.step_locals - recorder.first_step
    assert not missing, "missing at the first step: {}".format(sorted(missing))
    missing = case.algorithm.step_locals - recorder.last_step
    assert not missing, "missing at the last step: {}".format(sorted(missing))
    inner = model.model if case.algorithm.name == "HER" else model
    assert recorder.self_seen is inner
    # the evaluations, on whole episodes of the eval env
    with np.load(str(tmp_path / "eval" / "evaluations.npz")) as evaluations:
        assert len(evaluations["timesteps"]) >= 1
        assert evaluations["results"].shape == (len(evaluations["timesteps"]), N_EVAL_EPISODES)
        lengths = evaluations["ep_lengths"]
    _assert_episode_lengths(case, lengths.ravel().tolist())
    assert np.isfinite(eval_callback.last_mean_reward)


def _assert_episode_lengths(case: Case, lengths: List[int]) -> None:
    expected = episode_length(case.kind)
    if case.task == "goal":  # an episode ends sooner when the goal is reached
        assert all(1 <= length <= expected for length in lengths), lengths
    else:
        assert lengths == [expected] * len(lengths), lengths


def _evaluate(case: Case, model: Any) -> None:
    rewards, lengths = evaluate_policy(model, case.eval_env(), n_eval_episodes=N_EVAL_EPISODES,
                                       return_episode_rewards=True)
    assert len(rewards) == len(lengths) == N_EVAL_EPISODES
    _assert_episode_lengths(case, lengths)
    low, high = (0.0, 1.0) if case.task in ("discrete", "dict") else (-2.0, 0.0)
    if case.task == "goal":
        low, high = -1.0, 0.0
    for reward, length in zip(rewards, lengths):
        assert low * length <= reward <= high * length, (rewards, lengths)
    mean, _ = evaluate_policy(model, case.eval_env(), n_eval_episodes=N_EVAL_EPISODES)
    assert low * EP_LEN <= mean <= high * EP_LEN


def _resume_env(case: Case, stats_path: Optional[str]) -> Any:
    """:return: (Any) a fresh env of the kind, prepared for a resumed training (VecNormalize: the saved statistics)"""
    if stats_path is None:
        return case.env(seeded=True)
    env = seed_env(VecNormalize.load(stats_path, make_env("DummyVecEnv", case.task, case.n_envs)))
    case.made.append(env)
    return env


def _save_and_resume(case: Case, model: Any, tmp_path: Any) -> Any:
    """Save with the training state; the saver and the loaded model go on alike. :return: (model) the loaded one"""
    path = str(tmp_path / "model.zip")
    model.save(path, include_training_state=True)
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        assert STATE_MEMBER in names
        vec_normalize = model.get_vec_normalize_env()
        assert ("vec_normalize.json" in names) == (case.kind == "VecNormalize") == (vec_normalize is not None)
        stats_path = None
        if vec_normalize is not None:
            arrays = np.load(io.BytesIO(archive.read("vec_normalize.npz")))
            settings = json.loads(archive.read("vec_normalize.json"))
            assert settings["norm_obs"] is True
            if isinstance(vec_normalize.obs_rms, dict):  # per Box entry of a Dict observation, in key order
                assert settings["norm_obs_keys"] == ["level"] == list(vec_normalize.obs_rms)
                np.testing.assert_array_equal(arrays["obs_mean/0"], vec_normalize.obs_rms["level"].mean)
            else:
                np.testing.assert_array_equal(arrays["obs_mean"], vec_normalize.obs_rms.mean)
            stats_path = str(tmp_path / "vec_normalize.pkl")
            vec_normalize.save(stats_path)

    if case.kind == "id":
        model.set_env(ENV_IDS[case.task])
        _reseed(model)
    else:
        model.set_env(_resume_env(case, stats_path))
    model.learn(CONTINUE_STEPS, reset_num_timesteps=False)

    load_env = ENV_IDS[case.task] if case.kind == "id" else _resume_env(case, stats_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # statistics that differ would be warned about
        loaded = type(model).load(path, env=load_env, **case.algorithm.load_kwargs(_spaces_of(load_env)))
    if case.kind == "id":
        _reseed(loaded)
    loaded.learn(CONTINUE_STEPS, reset_num_timesteps=False)
    assert loaded.num_timesteps == model.num_timesteps
    expected, found = model.get_parameters(), loaded.get_parameters()
    assert list(found) == list(expected)
    for name, value in expected.items():
        np.testing.assert_array_equal(found[name], value, err_msg=name)
    return loaded


def _export(case: Case, model: Any, tmp_path: Any) -> None:
    """The SavedModel answers raw observations as ``predict`` does (VecNormalize: its statistics baked in)."""
    space = model.model.observation_space if case.algorithm.name == "HER" else model.observation_space
    vec_normalize = model.get_vec_normalize_env()
    if is_structured_space(space):
        if vec_normalize is not None:  # the statistics per key cannot be baked in: refused
            with pytest.raises(ValueError, match=r"Cannot export with the VecNormalize statistics per key"):
                model.export(str(tmp_path / "exported"), format="savedmodel")
            return
        batch = _dict_batch(space)
        expected, _ = model.predict(batch, deterministic=True)
        rows = pack_batch(batch, space)
    else:
        rows = sample_observations(space, n_obs=64)
        seen = rows if vec_normalize is None else vec_normalize.normalize_obs(rows)
        expected, _ = model.predict(seen, deterministic=True)
    model.export(str(tmp_path / "exported"), format="savedmodel")
    actions = load_saved_model(str(tmp_path / "exported"))([rows])[0]
    assert_same_actions(actions, np.asarray(expected), "{} {}".format(case.algorithm.name, case.kind))


def _dict_batch(space: Any, n_obs: int = 64) -> Dict[str, np.ndarray]:
    space.seed(0)
    samples = [space.sample() for _ in range(n_obs)]
    return {key: np.stack([np.asarray(sample[key]) for sample in samples]) for key in space.spaces}


def _run_case(algorithm_name: str, kind: str, observations: str, capsys: Any, tmp_path: Any) -> None:
    case = Case(BY_NAME[algorithm_name], kind, observations)
    try:
        refusal = _refusal(case)
        env = case.env()
        common = dict(verbose=1, seed=3, n_cpu_tf_sess=1)
        if refusal is not None:
            with pytest.raises(ValueError, match=refusal):
                case.algorithm.build(case.policy, env, **common)
            return
        model = case.algorithm.build(case.policy, env, **common)
        assert getattr(model, "uses_action_masks", False) == case.masked
        _train_with_everything(case, model, capsys, tmp_path)
        _evaluate(case, model)
        if case.masked:
            assert forbidden_actions(model.get_env()) == 0
            assert forbidden_actions(case.eval_env()) == 0
        if kind in RESUME_KINDS:
            model = _save_and_resume(case, model, tmp_path)
            if case.masked:
                assert model.uses_action_masks
                assert forbidden_actions(model.get_env()) == 0
        _export(case, model, tmp_path)
    finally:
        case.close()


@pytest.mark.parametrize("algorithm_name,kind", _cases("box"))
def test_box_observations(algorithm_name: str, kind: str, capsys: Any, tmp_path: Any) -> None:
    _run_case(algorithm_name, kind, "box", capsys, tmp_path)


@pytest.mark.parametrize("algorithm_name,kind", _cases("dict"))
def test_dict_observations(algorithm_name: str, kind: str, capsys: Any, tmp_path: Any) -> None:
    _run_case(algorithm_name, kind, "dict", capsys, tmp_path)


SINGLE_ENV = [algorithm.name for algorithm in ALGORITHMS if not algorithm.vectorized]


@pytest.mark.parametrize("kind", VEC_KINDS)
@pytest.mark.parametrize("algorithm_name", SINGLE_ENV)
def test_single_env_algorithms_refuse_several_envs(algorithm_name: str, kind: str) -> None:
    """A VecEnv of two envs for an algorithm that steps one env: refused, naming the number of envs given."""
    case = Case(BY_NAME[algorithm_name], kind, "box")
    case.n_envs = 2
    try:
        env = case.env()
        if algorithm_name == "HER":
            expected = _refusal(case) or r"HER needs a single environment .*got a VecEnv with 2 environments"
        else:
            expected = (r"the model requires a non vectorized environment or a single vectorized environment, got a "
                        r"VecEnv with 2 environments")
        with pytest.raises(ValueError, match=expected):
            case.algorithm.build("MlpPolicy", env, seed=0)
    finally:
        case.close()


@pytest.mark.parametrize("algorithm_name", ["DQN", "PPO1"] if PPO1 is not None else ["DQN"])
def test_set_env_and_load_refuse_several_envs_for_a_single_env_algorithm(algorithm_name: str, tmp_path: Any) -> None:
    case = Case(BY_NAME[algorithm_name], "plain", "box")
    model = case.algorithm.build("MlpPolicy", case.env(), seed=0)
    model.save(str(tmp_path / "model.zip"))
    two = make_env("DummyVecEnv", case.task, 2)
    expected = r"got a VecEnv with 2 environments"
    with pytest.raises(ValueError, match=expected):
        model.set_env(two)
    with pytest.raises(ValueError, match=expected):
        type(model).load(str(tmp_path / "model.zip"), env=two, **case.algorithm.load_kwargs(two))


def test_her_refuses_an_env_that_is_not_goal_conditioned() -> None:
    """HER reads Dict observations of the goal kind only: another Dict is refused, naming the keys it lacks."""
    with pytest.raises(ValueError, match=r"lacks the key\(s\) 'observation', 'achieved_goal', 'desired_goal' "
                                         r"\(expected .*got \['flip', 'level'\]\)"):
        HER("MlpPolicy", make_env("plain", "dict"), DQN)
    with pytest.raises(ValueError, match=r"MultiInputPolicy is for Dict and Tuple observation spaces, got "
                                         r"MultiBinary\(9\)"):
        HER("MultiInputPolicy", make_env("plain", "goal"), DQN)


# ---------------------------------------------------------------------------------------------- seams the matrix found
def test_eval_callback_compares_the_envs_as_the_user_gave_them() -> None:
    """A single env for a single-env algorithm and a single eval env: alike (no warning); a VecNormalize missing: not."""
    from stable_baselines.common.vec_env import DummyVecEnv, vec_wrapper_types
    from stable_baselines.common.vec_env.unvec_wrapper import _UnvecWrapper

    normalized = VecNormalize(DummyVecEnv([make_env("plain", "discrete").__class__]))
    assert vec_wrapper_types(make_env("plain", "discrete")) == ()
    assert vec_wrapper_types(DummyVecEnv([make_env("plain", "discrete").__class__])) == ()
    assert vec_wrapper_types(_UnvecWrapper(normalized)) == (VecNormalize,)
    model = DQN("MlpPolicy", make_env("plain", "discrete"), seed=0, **OFF_POLICY)
    for eval_env, warned in ((make_env("Monitor", "discrete"), False), (make_env("DummyVecEnv", "discrete"), False),
                             (make_env("VecNormalize", "discrete"), True)):
        callback = EvalCallback(eval_env, eval_freq=100, verbose=0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            callback.init_callback(model)
        messages = [str(warning.message) for warning in caught if "same type" in str(warning.message)]
        assert len(messages) == int(warned), messages


def test_sync_envs_normalization_looks_through_the_one_env_view() -> None:
    from stable_baselines.common.vec_env import DummyVecEnv, sync_envs_normalization
    from stable_baselines.common.vec_env.unvec_wrapper import _UnvecWrapper

    training = VecNormalize(DummyVecEnv([make_env("plain", "continuous").__class__]))
    training.reset()
    for _ in range(5):
        training.step(np.zeros((1, 1), np.float32))
    evaluation = VecNormalize(DummyVecEnv([make_env("plain", "continuous").__class__]), training=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sync_envs_normalization(_UnvecWrapper(training), evaluation)
    np.testing.assert_array_equal(evaluation.obs_rms.mean, training.obs_rms.mean)
    assert evaluation.obs_rms is not training.obs_rms and np.any(evaluation.obs_rms.mean != 0)


def test_callbacks_of_her_serve_the_her_model(tmp_path: Any) -> None:
    """A callback given to HER.learn is attached to the HER model: it saves HER files and evaluates on goal envs."""
    from stable_baselines.common.callbacks import CheckpointCallback

    model = HER("MlpPolicy", make_env("plain", "goal"), DQN, n_sampled_goal=2, seed=0, policy_kwargs=TINY,
                **OFF_POLICY)
    recorder = LocalsRecorder()
    checkpoint = CheckpointCallback(save_freq=30, save_path=str(tmp_path))
    model.learn(30, callback=[recorder, checkpoint])
    assert recorder.model is model and recorder.self_seen is model.model  # the loop's locals are the wrapped model's
    loaded = HER.load(str(tmp_path / "rl_model_30_steps.zip"))
    assert isinstance(loaded, HER) and loaded.model_class is DQN


@pytest.mark.parametrize("policy", ["MultiInputPolicy", "MultiInputLstmPolicy"])
def test_a_deterministic_graph_step_counts_the_sample_it_draws(policy: str) -> None:
    """
    A deterministic step through the graph also computes the negative log-likelihood of a sampled action, so the
    sampling op draws: the count must say so, or a resumed model draws other actions than the saved one would.
    """
    from stable_baselines.common.engine.tf_random_draws import session_draws

    model = PPO2(policy, make_env("DummyVecEnv", "dict", 1), n_steps=8, nminibatches=1, seed=0, n_cpu_tf_sess=1,
                 policy_kwargs=dict(n_lstm=8) if "Lstm" in policy else None)
    batch = _dict_batch(model.observation_space, 1)
    before = session_draws(model.sess)
    model.predict(batch, deterministic=True)
    after = session_draws(model.sess)
    moved = {name: after[name] - before.get(name, 0) for name in after if after[name] != before.get(name, 0)}
    assert len(moved) == 1 and list(moved.values())[0] > 0, moved
