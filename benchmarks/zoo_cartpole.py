"""
Train A2C or PPO2 on CartPole-v1 with the rl-baselines-zoo hyper-parameters and report the
deterministic score, steps/s and wall time.

    python benchmarks/zoo_cartpole.py --algo ppo2 --seeds 0 1 2
"""
import argparse

from bench_util import add_seed_arguments, run_seeds, score_summary, timed_learn
from stable_baselines import A2C, PPO2
from stable_baselines.bench import Monitor
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.gym_compat import make_env
from stable_baselines.common.vec_env import DummyVecEnv


def linear(initial_value):
    """The zoo's linear schedule (progress goes from 1 to 0)."""
    return lambda progress: progress * initial_value


ZOO = {
    "ppo2": (PPO2, 100000, dict(n_steps=32, nminibatches=1, lam=0.8, gamma=0.98, noptepochs=20, ent_coef=0.0,
                                learning_rate=linear(1e-3), cliprange=linear(0.2))),
    "a2c": (A2C, 500000, dict(ent_coef=0.0)),
}


def run(algo: str, seed: int, timesteps: int = None) -> dict:
    model_class, default_steps, kwargs = ZOO[algo]
    timesteps = timesteps or default_steps
    env = DummyVecEnv([lambda: Monitor(make_env("CartPole-v1"), None) for _ in range(8)])
    model = model_class("MlpPolicy", env, seed=seed, n_cpu_tf_sess=1, **kwargs)
    wall, _ = timed_learn(model, timesteps)
    mean, std = evaluate_policy(model, make_env("CartPole-v1"), n_eval_episodes=20, deterministic=True)
    return dict(seed=seed, score=mean, std=std, wall=wall, fps=timesteps / wall)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--algo", choices=sorted(ZOO), default="ppo2")
    add_seed_arguments(parser, None)
    args = parser.parse_args()
    results = run_seeds(args.seeds, lambda seed: run(args.algo, seed, args.timesteps),
                        "{algo} seed {seed}: deterministic score {score:.1f} +/- {std:.1f}, {fps:.0f} steps/s, "
                        "wall {wall:.1f} s", algo=args.algo)
    print(score_summary(args.algo, results))


if __name__ == "__main__":
    main()
