"""
The seven on-policy algorithms (A2C, ACER, ACKTR, PPO2, PPO1, TRPO, GAIL) at the edges of ``learn`` and of their
constructors: one learn frame (``BaseRLModel._learning``), one update loop (``common.model.on_policy``) and one
set of argument checks (``common.model.arguments``), so they all answer alike.
"""
import os

import gymnasium
import numpy as np
import pytest

from stable_baselines import A2C, ACER, ACKTR, PPO2
from stable_baselines.common.callbacks import BaseCallback
from stable_baselines.common.model.arguments import (InvalidArgumentError, check_gamma, check_learning_rate,
                                                     check_minibatches, check_positive_int)
from stable_baselines.common.model.on_policy import OnPolicyRLModel
from stable_baselines.common.model.segments import SegmentProgress
from stable_baselines.common.schedules import Scheduler
from stable_baselines.common.vec_env import DummyVecEnv

try:
    from stable_baselines import GAIL, PPO1, TRPO
    from stable_baselines.gail import ExpertDataset
    import stable_baselines.gail.dataset as gail_dataset
except ImportError:  # without the mpi extra these are not exported (and not tested here)
    GAIL = PPO1 = TRPO = None

# small settings so that one update stays cheap; the name of each algorithm's rollout length
SETTINGS = {A2C: (dict(n_steps=8), "n_steps"), ACER: (dict(n_steps=8, buffer_size=64), "n_steps"),
            ACKTR: (dict(n_steps=8), "n_steps"), PPO2: (dict(n_steps=16, nminibatches=2, noptepochs=1), "n_steps")}
if PPO1 is not None:
    SETTINGS.update({PPO1: (dict(timesteps_per_actorbatch=32, optim_batchsize=16, optim_epochs=1),
                            "timesteps_per_actorbatch"),
                     TRPO: (dict(timesteps_per_batch=32, vf_iters=1, cg_iters=2), "timesteps_per_batch"),
                     GAIL: (dict(timesteps_per_batch=32, vf_iters=1, cg_iters=2, g_step=1), "timesteps_per_batch")})
ALGOS = list(SETTINGS)
# the argument holding each algorithm's step size (PPO1, TRPO and GAIL name theirs differently)
STEP_SIZE = {A2C: "learning_rate", ACER: "learning_rate", ACKTR: "learning_rate", PPO2: "learning_rate",
             PPO1: "optim_stepsize", TRPO: "vf_stepsize", GAIL: "vf_stepsize"}


def _name(algo) -> str:
    return algo.__name__


def _make(algo, **changes):
    kwargs = dict(SETTINGS[algo][0], seed=0, n_cpu_tf_sess=1)
    kwargs.update(changes)
    if algo is GAIL:
        path = os.path.join(os.path.dirname(os.path.abspath(gail_dataset.__file__)), "expert_cartpole.npz")
        kwargs["expert_dataset"] = ExpertDataset(expert_path=path, traj_limitation=2, verbose=0)
    return algo("MlpPolicy", "CartPole-v1", **kwargs)


def _same_parameters(before, after) -> bool:
    return list(before) == list(after) and all(np.array_equal(before[key], after[key]) for key in before)


class _Stages(BaseCallback):
    """Records the stages of training it hears of, and what ``on_training_start`` shows."""

    def __init__(self):
        super().__init__()
        self.stages = []
        self.start_locals = None

    def _on_training_start(self):
        self.stages.append("start")
        self.start_locals = dict(self.locals)

    def _on_rollout_start(self):
        if not self.stages or self.stages[-1] != "rollout":
            self.stages.append("rollout")

    def _on_step(self):
        return True

    def _on_training_end(self):
        self.stages.append("end")


@pytest.mark.parametrize("algo", ALGOS, ids=_name)
def test_learn_zero_returns_the_model_untouched(algo):
    model = _make(algo)
    before = model.get_parameters()
    stages = _Stages()
    assert model.learn(0, callback=stages) is model
    assert model.num_timesteps == 0
    assert _same_parameters(before, model.get_parameters())
    # the frame still opens and closes: the callback hears the start and the end, and no rollout
    assert stages.stages == ["start", "end"]


@pytest.mark.parametrize("algo", ALGOS, ids=_name)
def test_bad_totals_and_intervals_are_refused_before_anything_changes(algo):
    model = _make(algo)
    before = model.get_parameters()
    for total in (-100, 2.5, None):
        with pytest.raises(InvalidArgumentError, match=r"^total_timesteps must be an int >= 0, got {!r}$"
                           .format(total)):
            model.learn(total)
    for interval in (0, -3, 1.5):
        with pytest.raises(InvalidArgumentError, match=r"^log_interval must be a positive int, got {!r}$"
                           .format(interval)):
            model.learn(64, log_interval=interval)
    assert model.num_timesteps == 0 and _same_parameters(before, model.get_parameters())


@pytest.mark.parametrize("algo", ALGOS, ids=_name)
def test_callback_sees_the_variables_of_learn(algo):
    model = _make(algo)
    stages = _Stages()
    model.learn(32, callback=stages, tb_log_name="first", log_interval=3)
    seen = stages.start_locals
    assert seen["self"] is model and seen["total_timesteps"] == 32 and seen["log_interval"] == 3
    assert seen["tb_log_name"] == "first" and seen["new_tb_log"] is True and seen["writer"] is None
    assert seen["reset_num_timesteps"] is True and seen["progress_bar"] is False
    assert stages.stages[0] == "start" and stages.stages[-1] == "end" and "rollout" in stages.stages
    steps_done = model.num_timesteps
    assert steps_done >= 32
    # continuing the count continues the tensorboard run
    again = _Stages()
    model.learn(32, callback=again, reset_num_timesteps=False)
    assert again.start_locals["new_tb_log"] is False and model.num_timesteps > steps_done


@pytest.mark.parametrize("algo", ALGOS, ids=_name)
@pytest.mark.parametrize("value", [0, -1, 2.0])
def test_rollout_length_must_be_positive(algo, value):
    name = SETTINGS[algo][1]
    with pytest.raises(InvalidArgumentError, match=r"^{} must be a positive int, got {!r}$".format(name, value)):
        _make(algo, **{name: value})


@pytest.mark.parametrize("algo", ALGOS, ids=_name)
@pytest.mark.parametrize("value", ["0.001", None, -1e-4, float("nan")], ids=repr)
def test_step_size_must_be_a_non_negative_number(algo, value):
    name = STEP_SIZE[algo]
    with pytest.raises(InvalidArgumentError, match=r"^{} must be a number >= 0".format(name)):
        _make(algo, **{name: value})


@pytest.mark.parametrize("algo", ALGOS, ids=_name)
@pytest.mark.parametrize("value", [1.5, -0.1, "0.99"], ids=repr)
def test_gamma_must_lie_in_the_unit_interval(algo, value):
    with pytest.raises(InvalidArgumentError, match=r"^gamma must be a number in \[0, 1\], got {!r}$".format(value)):
        _make(algo, gamma=value)


def test_only_ppo2_takes_a_schedule_function_as_learning_rate():
    schedule = lambda progress: 1e-3 * progress  # noqa: E731
    assert PPO2("MlpPolicy", "CartPole-v1", n_steps=16, nminibatches=2, learning_rate=schedule).learning_rate \
        is schedule
    for algo in (A2C, ACER, ACKTR):
        with pytest.raises(InvalidArgumentError, match=r"^learning_rate must be a number >= 0, got"):
            algo("MlpPolicy", "CartPole-v1", learning_rate=schedule)


def test_ppo2_minibatches_must_divide_the_rollout_at_construction():
    env = DummyVecEnv([lambda: __import__("gymnasium").make("CartPole-v1")] * 2)
    with pytest.raises(InvalidArgumentError, match=r"nminibatches must divide the number of transitions of a "
                                                   r"rollout, n_envs \* n_steps = 2 \* 15 = 30, got 4"):
        PPO2("MlpPolicy", env, n_steps=15, nminibatches=4)
    with pytest.raises(InvalidArgumentError, match=r"^nminibatches must be a positive int, got 0$"):
        PPO2("MlpPolicy", "CartPole-v1", nminibatches=0)
    # without an environment the check waits for learn (set_env may bring any number of envs)
    model = PPO2("MlpPolicy", None, n_steps=15, nminibatches=4, _init_setup_model=False)
    assert model.nminibatches == 4


def test_counts_of_updates_must_be_positive():
    with pytest.raises(InvalidArgumentError, match=r"^kfac_update must be a positive int, got 0$"):
        ACKTR("MlpPolicy", "CartPole-v1", kfac_update=0)
    with pytest.raises(InvalidArgumentError, match=r"^noptepochs must be a positive int, got 0$"):
        PPO2("MlpPolicy", "CartPole-v1", noptepochs=0)


def test_the_vectorized_algorithms_share_the_update_loop():
    for algo in (A2C, ACER, ACKTR, PPO2):
        assert issubclass(algo, OnPolicyRLModel)
        assert "_one_update" not in vars(algo) and "_learn_on_policy" not in vars(algo)


@pytest.mark.parametrize("value", [1, 7, np.int64(3)], ids=repr)
def test_check_positive_int_accepts(value):
    assert check_positive_int("n", value) == value and type(check_positive_int("n", value)) is int


@pytest.mark.parametrize("value", [0, -2, 1.0, True, "3", None], ids=repr)
def test_check_positive_int_refuses(value):
    with pytest.raises(InvalidArgumentError, match=r"^n must be a positive int, got {}$".format(
            repr(value).replace("(", r"\(").replace(")", r"\)"))):
        check_positive_int("n", value)


def test_check_learning_rate():
    assert check_learning_rate(0) == 0 and check_learning_rate(np.float32(1e-3)) == np.float32(1e-3)
    assert check_learning_rate(abs) is abs
    with pytest.raises(InvalidArgumentError, match=r"^learning_rate must be a number >= 0 or a function of the "
                                                   r"remaining progress, got 'x'$"):
        check_learning_rate("x")
    with pytest.raises(InvalidArgumentError, match=r"^lr must be a number >= 0, got True$"):
        check_learning_rate(True, name="lr", schedule_allowed=False)


def test_check_gamma_and_minibatches():
    assert check_gamma(0) == 0 and check_gamma(1.0) == 1.0
    with pytest.raises(InvalidArgumentError, match=r"^lam must be a number in \[0, 1\], got nan$"):
        check_gamma(float("nan"), name="lam")
    assert check_minibatches(4, 2, 16) == 4
    with pytest.raises(InvalidArgumentError, match="= 1 \\* 10 = 10, got 3"):
        check_minibatches(3, 1, 10)


class _TwoWorkers:
    """A stand-in for an MPI communicator of two workers, the other one reporting ``other``."""

    def __init__(self, other):
        self.other = other

    def allgather(self, mine):
        return [mine, tuple(self.other[key] for key in ("ep_lens", "ep_rets", "ep_true_rets")[:len(mine)])]

    def allreduce(self, steps):
        return steps + self.other["total_timestep"]

    def Get_rank(self):
        return 0


class _Counted:
    num_timesteps = 5
    verbose = 0


def test_segment_progress_averages_the_latest_episodes_of_all_workers():
    from stable_baselines import logger
    other = dict(ep_lens=[3], ep_rets=[1.0], ep_true_rets=[10.0], total_timestep=8)
    progress = SegmentProgress(_TwoWorkers(other), window=3, true_returns=True)
    model = _Counted()
    logger.configure(format_strs=[])
    try:
        progress.end_iteration(model, dict(ep_lens=[2, 4], ep_rets=[0.0, 2.0], ep_true_rets=[20.0, 30.0],
                                           total_timestep=8))
        table = dict(logger.getkvs())
        assert table["EpLenMean"] == pytest.approx(3.0) and table["EpRewMean"] == pytest.approx(1.0)
        assert table["EpTrueRewMean"] == pytest.approx(20.0)
        assert table["EpThisIter"] == 3 and table["EpisodesSoFar"] == 3 and table["TimestepsSoFar"] == 21
        assert progress.steps_done == 16 and progress.iterations == 1 and model.num_timesteps == 21
        logger.dumpkvs()
        # the means cover the last three episodes only (this worker's come first)
        progress.end_iteration(model, dict(ep_lens=[8], ep_rets=[5.0], ep_true_rets=[0.0], total_timestep=2))
        table = dict(logger.getkvs())
        assert list(progress.recent["ep_lens"]) == [3, 8, 3] and list(progress.recent["ep_true_rets"]) == [10, 0, 10]
        assert table["EpLenMean"] == pytest.approx(14 / 3) and table["EpisodesSoFar"] == 5
        assert progress.steps_done == 26 and model.num_timesteps == 31
    finally:
        logger.reset()


def test_segment_progress_without_episodes_writes_no_means():
    from stable_baselines import logger
    other = dict(ep_lens=[], ep_rets=[], total_timestep=4)
    progress = SegmentProgress(_TwoWorkers(other), window=100)
    logger.configure(format_strs=[])
    try:
        progress.end_iteration(_Counted(), dict(ep_lens=[], ep_rets=[], total_timestep=4))
        table = dict(logger.getkvs())
        assert "EpLenMean" not in table and "EpTrueRewMean" not in table
        assert table["EpThisIter"] == 0 and table["TimestepsSoFar"] == 13
    finally:
        logger.reset()


@pytest.mark.parametrize("schedule", ["linear", "constant", "double_linear_con", "middle_drop", "double_middle_drop"])
def test_learning_rate_of_a_batch_equals_one_tick_per_transition(schedule):
    """A named schedule advanced by a batch in one step gives the rate and the position of n single ticks."""
    model = A2C("MlpPolicy", DummyVecEnv([lambda: gymnasium.make("CartPole-v1")]), lr_schedule=schedule,
                n_cpu_tf_sess=1)
    reference = Scheduler(initial_value=model.learning_rate, n_values=1000, schedule=schedule)
    model._start_rate_schedule(1000)
    for batch in (5, 40, 1, 333, 7):
        for _ in range(batch - 1):
            reference.value()
        assert model._advance_learning_rate(batch) == reference.value()
        assert model.learning_rate_schedule.step == reference.step


def test_learning_rate_of_a_user_curve_is_ticked_once_per_transition():
    """A curve given as a function is called for every transition, as before (it may count its calls)."""
    calls = []

    def curve(progress):
        calls.append(progress)
        return 1.0 - progress

    model = A2C("MlpPolicy", DummyVecEnv([lambda: gymnasium.make("CartPole-v1")]), n_cpu_tf_sess=1)
    model.learning_rate_schedule = Scheduler(initial_value=1.0, n_values=100, schedule=curve)
    assert model._advance_learning_rate(10) == 1.0 - 9 / 100
    assert len(calls) == 10
