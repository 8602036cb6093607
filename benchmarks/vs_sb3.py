"""
Stable Baselines (this library) against Stable-Baselines3, side by side, with matched settings.

Each measurement runs in its own fresh process: ours with this interpreter, SB3's with
``--sb3-python`` (default ``/work/sb3venv/bin/python``; Stable-Baselines3 2.x with torch CPU,
``torch.set_num_threads(1)``). Both sides use one intra-op thread (``n_cpu_tf_sess=1``), the same
environments (gymnasium, wrapped in a Monitor, in a DummyVecEnv) and the same hyper-parameters:

- ``ppo``:  PPO2 / PPO, CartPole-v1, 8 envs, n_steps 128, 4 minibatches (batch 256), 4 epochs, 64x64 tanh
- ``a2c``:  A2C, CartPole-v1, 8 envs, n_steps 5, 64x64 tanh
- ``dqn``:  DQN, CartPole-v1, train_freq 1, learning_starts 1000, target update 500, batch 32,
  no double-Q, no dueling, no prioritized replay, 64x64 relu
- ``sac``:  SAC, Pendulum-v1, train_freq 1, gradient_steps 1, batch 64, learning_starts 100, 64x64 relu
- ``td3``:  TD3, Pendulum-v1, train_freq 1, gradient_steps 1, batch 128, Gaussian action noise 0.1, 64x64 relu
- ``predict_ppo`` / ``predict_sac``: median latency of ``model.predict(obs)`` for one observation

Figures: environment steps per second of ``learn`` (wall clock and CPU time of the process), the median
over ``--runs`` runs (the two libraries alternate, run by run); predict latency in microseconds: wall
clock, median over 5000 calls timed one by one, and CPU time, the mean over the same 5000 calls (timed as
a whole, so that reading the CPU clock is not part of the figure).

    python benchmarks/vs_sb3.py                      # all cases, 3 runs each
    python benchmarks/vs_sb3.py --cases ppo a2c --runs 5
"""
import argparse
import json
import sys
import time

from bench_util import parse_side_by_side, run_case_worker

CASES = ["ppo", "a2c", "dqn", "sac", "td3", "predict_ppo", "predict_sac"]
STEPS = {"ppo": 16384, "a2c": 16000, "dqn": 6000, "sac": 3000, "td3": 3000}
WARMUP = {"ppo": 2048, "a2c": 2000, "dqn": 0, "sac": 0, "td3": 0}


# ------------------------------------------------------------------------------------------------
# workers (run in a fresh process)
# ------------------------------------------------------------------------------------------------
def _make_ours(case: str):
    from stable_baselines import A2C, DQN, PPO2, SAC, TD3  # pylint: disable=import-outside-toplevel
    from stable_baselines.bench import Monitor  # pylint: disable=import-outside-toplevel
    from stable_baselines.common.gym_compat import make_env  # pylint: disable=import-outside-toplevel
    from stable_baselines.common.noise import NormalActionNoise  # pylint: disable=import-outside-toplevel
    from stable_baselines.common.tf_compat import tf  # pylint: disable=import-outside-toplevel
    from stable_baselines.common.vec_env import DummyVecEnv  # pylint: disable=import-outside-toplevel
    import numpy as np  # pylint: disable=import-outside-toplevel

    def venv(env_id, n_envs):
        return DummyVecEnv([lambda: Monitor(make_env(env_id), None) for _ in range(n_envs)])

    if case in ("ppo", "predict_ppo"):
        return PPO2("MlpPolicy", venv("CartPole-v1", 8), n_steps=128, nminibatches=4, noptepochs=4,
                    policy_kwargs=dict(net_arch=[dict(pi=[64, 64], vf=[64, 64])], act_fun=tf.tanh),
                    n_cpu_tf_sess=1, seed=0)
    if case == "a2c":
        return A2C("MlpPolicy", venv("CartPole-v1", 8), n_steps=5,
                   policy_kwargs=dict(net_arch=[dict(pi=[64, 64], vf=[64, 64])], act_fun=tf.tanh),
                   n_cpu_tf_sess=1, seed=0)
    if case == "dqn":
        return DQN("MlpPolicy", venv("CartPole-v1", 1), train_freq=1, learning_starts=1000,
                   target_network_update_freq=500, batch_size=32, double_q=False, prioritized_replay=False,
                   policy_kwargs=dict(layers=[64, 64], dueling=False, act_fun=tf.nn.relu), n_cpu_tf_sess=1, seed=0)
    if case in ("sac", "predict_sac"):
        return SAC("MlpPolicy", venv("Pendulum-v1", 1), train_freq=1, gradient_steps=1, batch_size=64,
                   learning_starts=100, policy_kwargs=dict(layers=[64, 64], act_fun=tf.nn.relu),
                   n_cpu_tf_sess=1, seed=0)
    if case == "td3":
        return TD3("MlpPolicy", venv("Pendulum-v1", 1), train_freq=1, gradient_steps=1, batch_size=128,
                   action_noise=NormalActionNoise(np.zeros(1), 0.1 * np.ones(1)),
                   policy_kwargs=dict(layers=[64, 64], act_fun=tf.nn.relu), n_cpu_tf_sess=1, seed=0)
    raise ValueError(case)


def _make_sb3(case: str):
    import numpy as np  # pylint: disable=import-outside-toplevel
    import torch  # pylint: disable=import-outside-toplevel
    torch.set_num_threads(1)
    from stable_baselines3 import A2C, DQN, PPO, SAC, TD3  # pylint: disable=import-outside-toplevel
    from stable_baselines3.common.env_util import make_vec_env  # pylint: disable=import-outside-toplevel
    from stable_baselines3.common.noise import NormalActionNoise  # pylint: disable=import-outside-toplevel
    from stable_baselines3.common.vec_env import DummyVecEnv  # pylint: disable=import-outside-toplevel

    def venv(env_id, n_envs):
        return make_vec_env(env_id, n_envs=n_envs, vec_env_cls=DummyVecEnv, seed=0)

    tanh = dict(net_arch=dict(pi=[64, 64], vf=[64, 64]), activation_fn=torch.nn.Tanh)
    if case in ("ppo", "predict_ppo"):
        return PPO("MlpPolicy", venv("CartPole-v1", 8), n_steps=128, batch_size=256, n_epochs=4,
                   policy_kwargs=tanh, device="cpu", seed=0)
    if case == "a2c":
        return A2C("MlpPolicy", venv("CartPole-v1", 8), n_steps=5, policy_kwargs=tanh, device="cpu", seed=0)
    if case == "dqn":
        return DQN("MlpPolicy", venv("CartPole-v1", 1), train_freq=1, gradient_steps=1, learning_starts=1000,
                   target_update_interval=500, batch_size=32,
                   policy_kwargs=dict(net_arch=[64, 64], activation_fn=torch.nn.ReLU), device="cpu", seed=0)
    if case in ("sac", "predict_sac"):
        return SAC("MlpPolicy", venv("Pendulum-v1", 1), train_freq=1, gradient_steps=1, batch_size=64,
                   learning_starts=100, policy_kwargs=dict(net_arch=[64, 64], activation_fn=torch.nn.ReLU),
                   device="cpu", seed=0)
    if case == "td3":
        return TD3("MlpPolicy", venv("Pendulum-v1", 1), train_freq=1, gradient_steps=1, batch_size=128,
                   action_noise=NormalActionNoise(np.zeros(1), 0.1 * np.ones(1)),
                   policy_kwargs=dict(net_arch=[64, 64], activation_fn=torch.nn.ReLU), device="cpu", seed=0)
    raise ValueError(case)


def worker(lib: str, case: str) -> dict:
    """Measure one case in this process and return the figures."""
    import resource  # pylint: disable=import-outside-toplevel
    import numpy as np  # pylint: disable=import-outside-toplevel
    model = _make_ours(case) if lib == "sb2" else _make_sb3(case)
    result = {"lib": lib, "case": case}
    if case.startswith("predict"):
        obs = np.zeros(model.observation_space.shape, dtype=np.float32)
        for _ in range(500):
            model.predict(obs)
        # wall clock per call (nothing else inside the timed window), CPU time over the whole loop
        wall = []
        start_cpu = time.process_time_ns()
        for _ in range(5000):
            start_wall = time.perf_counter_ns()
            model.predict(obs)
            wall.append(time.perf_counter_ns() - start_wall)
        cpu = [(time.process_time_ns() - start_cpu) / 5000]
        result.update(us_wall=float(np.median(wall)) / 1e3, us_cpu=float(np.median(cpu)) / 1e3)
    else:
        if WARMUP[case]:
            model.learn(WARMUP[case])
        steps = STEPS[case]
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        model.learn(steps)
        result.update(fps_wall=steps / (time.perf_counter() - start_wall),
                      fps_cpu=steps / (time.process_time() - start_cpu))
    result["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return result


# ------------------------------------------------------------------------------------------------
# driver
# ------------------------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", nargs="+", default=CASES, choices=CASES)
    args = parse_side_by_side(parser, worker)
    if args is None:
        return

    import numpy as np  # pylint: disable=import-outside-toplevel
    rows = []
    for case in args.cases:
        # the two libraries alternate run by run, so that both see the same drift of the machine's speed
        runs = {"sb2": [], "sb3": []}
        for _ in range(args.runs):
            for lib, python in (("sb2", sys.executable), ("sb3", args.sb3_python)):
                runs[lib].append(run_case_worker(__file__, python, lib, case))
        key = "us" if case.startswith("predict") else "fps"
        figures = {lib: {name: float(np.median([run[name] for run in lib_runs]))
                         for name in ("{}_wall".format(key), "{}_cpu".format(key), "max_rss_mb")}
                   for lib, lib_runs in runs.items()}
        rows.append((case, figures))
        print(json.dumps({"case": case, **figures}), flush=True)

    print()
    print("| case | ours wall | SB3 wall | ratio (wall) | ours CPU | SB3 CPU | ratio (CPU) | peak RSS MB ours / SB3 |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for case, fig in rows:
        if case.startswith("predict"):
            ours_w, sb3_w, ours_c, sb3_c = (fig["sb2"]["us_wall"], fig["sb3"]["us_wall"], fig["sb2"]["us_cpu"],
                                            fig["sb3"]["us_cpu"])
            unit, ratio_w, ratio_c = "us", sb3_w / ours_w, sb3_c / ours_c
        else:
            ours_w, sb3_w, ours_c, sb3_c = (fig["sb2"]["fps_wall"], fig["sb3"]["fps_wall"], fig["sb2"]["fps_cpu"],
                                            fig["sb3"]["fps_cpu"])
            unit, ratio_w, ratio_c = "steps/s", ours_w / sb3_w, ours_c / sb3_c
        print("| {} | {:.0f} {u} | {:.0f} {u} | x{:.2f} | {:.0f} {u} | {:.0f} {u} | x{:.2f} | {:.0f} / {:.0f} |".format(
            case, ours_w, sb3_w, ratio_w, ours_c, sb3_c, ratio_c, fig["sb2"]["max_rss_mb"],
            fig["sb3"]["max_rss_mb"], u=unit))
    print("\nratio > 1: this library is faster (steps/s ours / SB3; latency SB3 / ours)")


if __name__ == "__main__":
    main()
