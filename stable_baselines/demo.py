"""
A short demonstration that the installation works: ``python -m stable_baselines.demo``

Trains PPO2 on CartPole-v1 with the rl-baselines-zoo hyper-parameters (100 000 steps, about a
minute on two cores), printing the training table, then evaluates the deterministic policy over
10 episodes. Exits with status 0 when the mean reward reaches the solved score (475).
"""
import argparse
import sys
import time

SOLVED_SCORE = 475.0


def main(argv=None) -> int:
    """
    Run the demo.

    :param argv: ([str]) command-line arguments (default: sys.argv[1:])
    :return: (int) the exit status: 0 when the trained agent solves CartPole-v1
    """
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=100000, help="training budget (environment steps)")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--progress-bar", action="store_true", help="draw a tqdm progress bar instead of the table")
    args = parser.parse_args(argv)

    from stable_baselines import PPO2
    from stable_baselines.bench import Monitor
    from stable_baselines.common.evaluation import evaluate_policy
    from stable_baselines.common.gym_compat import make_env
    from stable_baselines.common.vec_env import DummyVecEnv

    def linear(initial_value):
        # the zoo's linear schedule: ``progress`` goes from 1 (start) to 0 (end of training)
        return lambda progress: progress * initial_value

    env = DummyVecEnv([lambda: Monitor(make_env("CartPole-v1"), None) for _ in range(8)])
    model = PPO2("MlpPolicy", env, n_steps=32, nminibatches=1, lam=0.8, gamma=0.98, noptepochs=20, ent_coef=0.0,
                 learning_rate=linear(1e-3), cliprange=linear(0.2), verbose=0 if args.progress_bar else 1,
                 seed=args.seed, n_cpu_tf_sess=1)
    print("Training PPO2 on CartPole-v1 for {} steps (rl-baselines-zoo settings)".format(args.timesteps))
    start = time.time()
    model.learn(total_timesteps=args.timesteps, log_interval=50, progress_bar=args.progress_bar)
    elapsed = time.time() - start
    eval_env = make_env("CartPole-v1")
    mean_reward, std_reward = evaluate_policy(model, eval_env, n_eval_episodes=10, deterministic=True)
    print("Trained in {:.0f} s ({:.0f} steps/s). Deterministic mean reward over 10 episodes: {:.1f} +/- {:.1f}"
          .format(elapsed, args.timesteps / elapsed, mean_reward, std_reward))
    if mean_reward >= SOLVED_SCORE:
        print("CartPole-v1 solved (>= {}). The installation works.".format(SOLVED_SCORE))
        return 0
    print("Mean reward below the solved score {}.".format(SOLVED_SCORE))
    return 1


if __name__ == "__main__":
    sys.exit(main())
