"""
The rank side of tests/test_data_parallel.py, run under ``mpirun -np 2``:

    python tests/data_parallel_worker.py checks <folder>   # several trainings, tests/<folder>/rank<r>.json
    python tests/data_parallel_worker.py fail <folder>     # rank 1 raises in the middle of learn

Each check records values the test then compares across the ranks.
"""
import json
import os
import sys


from stable_baselines import A2C, PPO2
from stable_baselines.common.callbacks import BaseCallback
from stable_baselines.common.model.data_parallel import OPT_OUT_VARIABLE
from stable_baselines.bench import Monitor
from stable_baselines.common.vec_env import DummyVecEnv

N_ENVS = 2


def cartpole(n_envs=N_ENVS):
    import gymnasium

    return DummyVecEnv([lambda: Monitor(gymnasium.make("CartPole-v1"), None) for _ in range(n_envs)])


def parameters(model):
    return {name: value.tolist() for name, value in model.get_parameters().items()}


class StopOnRank(BaseCallback):
    """Counts its steps; asks to stop at step ``stop_at`` on rank ``rank`` only."""

    def __init__(self, rank, stop_at):
        super().__init__()
        self.stop_rank, self.stop_at, self.steps = rank, stop_at, 0

    def _on_step(self):
        self.steps += 1
        return not (self.model._data_parallel.rank == self.stop_rank and self.steps == self.stop_at)


def checks(folder):
    from mpi4py import MPI

    rank = MPI.COMM_WORLD.Get_rank()
    result = {"rank": rank, "size": MPI.COMM_WORLD.Get_size()}
    # PPO2, feed-forward: seeded per rank, trained together; rank 0 alone writes the file and tensorboard
    progress = []

    def rate(fraction):
        progress.append(fraction)
        return 1e-3 * fraction

    model = PPO2("MlpPolicy", cartpole(), n_steps=16, nminibatches=2, noptepochs=2, learning_rate=rate, seed=0,
                 n_cpu_tf_sess=1, tensorboard_log=os.path.join(folder, "tb"), verbose=1,
                 policy_kwargs=dict(net_arch=[8]))
    result["ppo2_initial"] = parameters(model)
    result["ppo2_fused"] = model._fused_update.enabled
    model.learn(3 * 2 * 16 * N_ENVS)
    result["ppo2_final"] = parameters(model)
    result["ppo2_num_timesteps"] = model.num_timesteps
    result["ppo2_progress"] = sorted(set(progress), reverse=True)
    result["ppo2_episode_rewards"] = [info["r"] for info in model.ep_info_buf]
    result["ppo2_own_episodes"] = sum(len(env.get_episode_rewards()) for env in model.get_env().envs)
    model.save(os.path.join(folder, "ppo2_rank{}.zip".format(rank)))

    # PPO2, recurrent
    model = PPO2("MlpLstmPolicy", cartpole(), n_steps=8, nminibatches=2, noptepochs=2, seed=1, n_cpu_tf_sess=1,
                 policy_kwargs=dict(net_arch=[8, "lstm", 8], n_lstm=8))
    model.learn(2 * 2 * 8 * N_ENVS)
    result["lstm_final"] = parameters(model)
    result["lstm_num_timesteps"] = model.num_timesteps

    # A2C, its schedule ticking per transition of both ranks
    model = A2C("MlpPolicy", cartpole(), n_steps=5, lr_schedule="linear", seed=2, n_cpu_tf_sess=1,
                policy_kwargs=dict(net_arch=[8]))
    result["a2c_initial"] = parameters(model)
    model.learn(4 * 5 * N_ENVS * 2)
    result["a2c_final"] = parameters(model)
    result["a2c_num_timesteps"] = model.num_timesteps
    result["a2c_schedule_step"] = float(model.learning_rate_schedule.step)

    # A2C with a recurrent policy on an env whose mask exists after reset: masks on every rank, no masked action
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from tests.mask_env_helpers import MaskAfterResetEnv
    masked_env = DummyVecEnv([MaskAfterResetEnv for _ in range(N_ENVS)])
    model = A2C("MlpLstmPolicy", masked_env, n_steps=5, seed=6, n_cpu_tf_sess=1,
                policy_kwargs=dict(net_arch=[8, "lstm", dict(pi=[8], vf=[8])], n_lstm=8))
    model.learn(6 * 5 * N_ENVS * 2)
    result["masked_final"] = parameters(model)
    result["masked_uses_masks"] = bool(model.uses_action_masks)
    result["masked_forbidden"] = sum(masked_env.get_attr("forbidden"))

    # a callback asking to stop on rank 1 only stops both ranks at that step
    model = PPO2("MlpPolicy", cartpole(), n_steps=16, nminibatches=2, seed=3, n_cpu_tf_sess=1,
                 policy_kwargs=dict(net_arch=[8]))
    callback = StopOnRank(rank=1, stop_at=21)
    model.learn(10 * 16 * N_ENVS * 2, callback=callback)
    result["stop_steps"] = callback.steps
    result["stop_num_timesteps"] = model.num_timesteps
    result["stop_final"] = parameters(model)

    # ranks that disagree on total_timesteps: the same clear error on every rank
    model = A2C("MlpPolicy", cartpole(), seed=4, n_cpu_tf_sess=1, policy_kwargs=dict(net_arch=[8]))
    try:
        model.learn(200 + 100 * rank)
        result["mismatch_error"] = None
    except ValueError as error:
        result["mismatch_error"] = str(error)

    # the opt-out: every rank trains on its own
    os.environ[OPT_OUT_VARIABLE] = "0"
    model = PPO2("MlpPolicy", cartpole(), n_steps=16, nminibatches=2, seed=5 + rank, n_cpu_tf_sess=1,
                 policy_kwargs=dict(net_arch=[8]))
    model.learn(2 * 16 * N_ENVS)
    result["optout_data_parallel"] = model._data_parallel is not None
    result["optout_num_timesteps"] = model.num_timesteps
    result["optout_final"] = parameters(model)
    del os.environ[OPT_OUT_VARIABLE]

    with open(os.path.join(folder, "rank{}.json".format(rank)), "w") as file:
        json.dump(result, file)


class FailOnRank1(BaseCallback):
    def _on_step(self):
        if self.model._data_parallel.rank == 1 and self.n_calls == 7:
            raise RuntimeError("rank one breaks on purpose")
        return True


def fail(folder):
    model = PPO2("MlpPolicy", cartpole(), n_steps=16, nminibatches=2, seed=0, n_cpu_tf_sess=1,
                 policy_kwargs=dict(net_arch=[8]))
    model.learn(100 * 16 * N_ENVS * 2, callback=FailOnRank1())
    with open(os.path.join(folder, "finished{}".format(model._data_parallel.rank)), "w") as file:
        file.write("not reached")


if __name__ == "__main__":
    {"checks": checks, "fail": fail}[sys.argv[1]](sys.argv[2])
