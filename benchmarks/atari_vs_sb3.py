"""
Atari frames per second, this library beside Stable-Baselines3, measured the way ``vs_sb3.py`` measures
CartPole: every figure comes from a fresh process, the two libraries take turns run by run, one thread each
(``n_cpu_tf_sess=1`` / ``torch.set_num_threads(1)``), wall clock and process CPU time side by side.

Both sides build the same game stack: the raw ``*NoFrameskip-v4`` game (ale-py) under a Monitor, no-op starts
(up to 30), 4 frames per action (max of the last two), a lost life ends the episode, FIRE at reset where the game
has it, 84x84 grey frames, clipped rewards, then 4 frames stacked by ``VecFrameStack``.

Cases:

- ``ppo``: PPO2 / PPO ``CnnPolicy``, 8 envs, n_steps 128, 4 minibatches (batch 256), 4 epochs;
  ``learn(1024)`` first (graph warm-up), then ``learn(4096)`` is timed
- ``dqn``: DQN ``CnnPolicy`` (Nature CNN, no hidden layer after it, no dueling, no double-Q, uniform replay),
  1 env, buffer 10000, learning_starts 1000, train_freq 4, batch 32, target update 1000; ``learn(5000)`` timed
- ``env``: the 8 games and the frame stack alone, random actions, 2048 vector steps (the environment's share)
- ``ppo_envpool`` / ``env_envpool`` (ours only): the same with :class:`EnvPoolVecEnv` (EnvPool's own
  DeepMind preprocessing, same options) instead of the Python wrappers; needs ``envpool`` importable

One agent step is 4 emulator frames: ``frames/s = 4 x steps/s``.

    python benchmarks/atari_vs_sb3.py --cases ppo dqn env --runs 3
"""
import argparse
import json
import os
import sys
import time

from bench_util import median, parse_side_by_side, run_case_worker

GAME = "PongNoFrameskip-v4"
CASES = ["ppo", "dqn", "env", "ppo_envpool", "env_envpool"]
OURS_ONLY = ("ppo_envpool", "env_envpool")
FRAME_SKIP = 4
PPO_WARMUP, PPO_STEPS, DQN_STEPS, ENV_STEPS = 1024, 4096, 5000, 2048


def _register_ale() -> None:
    import ale_py  # pylint: disable=import-outside-toplevel
    import gymnasium  # pylint: disable=import-outside-toplevel
    gymnasium.register_envs(ale_py)


# ------------------------------------------------------------------------------------------------
# one measurement, in a fresh process
# ------------------------------------------------------------------------------------------------
def _our_env(n_envs: int, envpool: bool):
    from stable_baselines.common.vec_env import VecFrameStack  # pylint: disable=import-outside-toplevel
    if envpool:
        from stable_baselines.common.vec_env import EnvPoolVecEnv  # pylint: disable=import-outside-toplevel
        return EnvPoolVecEnv("Pong-v5", n_envs, seed=0)
    from stable_baselines.common.cmd_util import make_atari_env  # pylint: disable=import-outside-toplevel
    return VecFrameStack(make_atari_env(GAME, n_envs, 0), 4)


def _sb3_env(n_envs: int):
    from stable_baselines3.common.env_util import make_atari_env  # pylint: disable=import-outside-toplevel
    from stable_baselines3.common.vec_env import VecFrameStack  # pylint: disable=import-outside-toplevel
    return VecFrameStack(make_atari_env(GAME, n_envs=n_envs, seed=0), n_stack=4)


def _our_model(case: str, env):
    from stable_baselines import DQN, PPO2  # pylint: disable=import-outside-toplevel
    if case.startswith("ppo"):
        return PPO2("CnnPolicy", env, n_steps=128, nminibatches=4, noptepochs=4, n_cpu_tf_sess=1, seed=0)
    return DQN("CnnPolicy", env, buffer_size=10000, learning_starts=1000, train_freq=4, batch_size=32,
               target_network_update_freq=1000, double_q=False, prioritized_replay=False,
               policy_kwargs=dict(layers=[], dueling=False), n_cpu_tf_sess=1, seed=0)


def _sb3_model(case: str, env):
    import torch  # pylint: disable=import-outside-toplevel
    torch.set_num_threads(1)
    from stable_baselines3 import DQN, PPO  # pylint: disable=import-outside-toplevel
    if case == "ppo":
        return PPO("CnnPolicy", env, n_steps=128, batch_size=256, n_epochs=4, device="cpu", seed=0)
    return DQN("CnnPolicy", env, buffer_size=10000, learning_starts=1000, train_freq=4, gradient_steps=1,
               batch_size=32, target_update_interval=1000, device="cpu", seed=0)


def _time_env(env) -> tuple:
    """Vector steps of random actions; returns the wall clock and CPU seconds they took."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    rng = np.random.default_rng(0)
    env.reset()
    n_actions = env.action_space.n
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    for _ in range(ENV_STEPS):
        env.step(rng.integers(n_actions, size=env.num_envs))
    return time.perf_counter() - start_wall, time.process_time() - start_cpu


def worker(lib: str, case: str) -> dict:
    """Measure one case in this process and return the figures."""
    import resource  # pylint: disable=import-outside-toplevel
    _register_ale()
    n_envs = 1 if case == "dqn" else 8
    env = _our_env(n_envs, case.endswith("envpool")) if lib == "sb2" else _sb3_env(n_envs)
    if case.startswith("env"):
        wall, cpu = _time_env(env)
        steps = ENV_STEPS * n_envs
    else:
        model = _our_model(case, env) if lib == "sb2" else _sb3_model(case, env)
        if case.startswith("ppo"):
            model.learn(PPO_WARMUP)
        steps = PPO_STEPS if case.startswith("ppo") else DQN_STEPS
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        model.learn(steps)
        wall, cpu = time.perf_counter() - start_wall, time.process_time() - start_cpu
    return {"lib": lib, "case": case, "fps_wall": FRAME_SKIP * steps / wall, "fps_cpu": FRAME_SKIP * steps / cpu,
            "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}


# ------------------------------------------------------------------------------------------------
# driver
# ------------------------------------------------------------------------------------------------
def _median(runs: list, key: str) -> float:
    return median(run[key] for run in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", nargs="+", default=["ppo", "dqn", "env"], choices=CASES)
    args = parse_side_by_side(parser, worker)
    if args is None:
        return
    print("load before:", os.getloadavg())
    rows = []
    for case in args.cases:
        libs = [("sb2", sys.executable)] + ([] if case in OURS_ONLY else [("sb3", args.sb3_python)])
        runs: dict = {lib: [] for lib, _ in libs}
        for _ in range(args.runs):
            for lib, python in libs:
                runs[lib].append(run_case_worker(__file__, python, lib, case))
                print(json.dumps(runs[lib][-1]), flush=True)
        rows.append((case, {lib: {key: _median(lib_runs, key) for key in ("fps_wall", "fps_cpu", "max_rss_mb")}
                            for lib, lib_runs in runs.items()}))
    print("load after:", os.getloadavg())
    print()
    print("| case | ours frames/s (wall) | SB3 | ratio | ours frames/s (CPU) | SB3 | ratio | peak RSS MB ours / SB3 |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for case, fig in rows:
        ours, sb3 = fig["sb2"], fig.get("sb3")
        if sb3 is None:
            print("| {} | {:.0f} | - | - | {:.0f} | - | - | {:.0f} / - |".format(
                case, ours["fps_wall"], ours["fps_cpu"], ours["max_rss_mb"]))
            continue
        print("| {} | {:.0f} | {:.0f} | x{:.2f} | {:.0f} | {:.0f} | x{:.2f} | {:.0f} / {:.0f} |".format(
            case, ours["fps_wall"], sb3["fps_wall"], ours["fps_wall"] / sb3["fps_wall"], ours["fps_cpu"],
            sb3["fps_cpu"], ours["fps_cpu"] / sb3["fps_cpu"], ours["max_rss_mb"], sb3["max_rss_mb"]))
    print("\nframes = 4 x agent steps; ratio > 1: this library is faster; medians over {} runs".format(args.runs))


if __name__ == "__main__":
    main()
