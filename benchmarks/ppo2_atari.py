"""
PPO2 with CnnPolicy on an Atari game for a fixed budget: frames per second and the score curve.

Settings of ``python -m stable_baselines.ppo2.run_atari`` (the PPO paper's: 8 envs, n_steps 128,
4 minibatches, 4 epochs, lr 2.5e-4 and clip 0.1 annealed, entropy 0.01), DeepMind preprocessing
with 4 stacked frames. Scores are the real game scores (whole games, unclipped rewards, from the
Monitor under the wrappers); one frame = one emulator frame (4 per agent step).

    python benchmarks/ppo2_atari.py --env PongNoFrameskip-v4 --timesteps 1000000
"""
import argparse
import time

import numpy as np

from stable_baselines import PPO2
from stable_baselines.common.callbacks import BaseCallback
from stable_baselines.common.cmd_util import make_atari_env
from stable_baselines.common.vec_env import VecFrameStack

FRAME_SKIP = 4


class ScoreCurve(BaseCallback):
    """Collects (timestep, game score) of every finished game from the Monitor infos."""

    def __init__(self):
        super().__init__()
        self.points = []

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", []) or []:
            episode = info.get("episode")
            if episode is not None:
                self.points.append((self.num_timesteps, float(episode["r"])))
        return True


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default="PongNoFrameskip-v4")
    parser.add_argument("--timesteps", type=int, default=1000000, help="agent steps (frames = 4 x steps)")
    parser.add_argument("--n-envs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--points", type=int, default=10, help="number of points of the printed curve")
    args = parser.parse_args()

    env = VecFrameStack(make_atari_env(args.env, args.n_envs, args.seed), 4)
    model = PPO2("CnnPolicy", env, n_steps=128, nminibatches=4, lam=0.95, gamma=0.99, noptepochs=4, ent_coef=.01,
                 learning_rate=lambda f: f * 2.5e-4, cliprange=lambda f: f * 0.1, seed=args.seed, n_cpu_tf_sess=None)
    curve = ScoreCurve()
    start = time.time()
    model.learn(args.timesteps, callback=curve)
    wall = time.time() - start
    env.close()

    print("{}: {} agent steps = {} frames in {:.0f} s: {:.0f} steps/s, {:.0f} frames/s".format(
        args.env, args.timesteps, args.timesteps * FRAME_SKIP, wall, args.timesteps / wall,
        args.timesteps * FRAME_SKIP / wall))
    print("score curve (mean game score of the games finished in each slice of the budget):")
    edges = np.linspace(0, args.timesteps, args.points + 1)
    for low, high in zip(edges[:-1], edges[1:]):
        scores = [score for step, score in curve.points if low < step <= high]
        mean = "{:8.1f} over {} games".format(np.mean(scores), len(scores)) if scores else "   (no game ended)"
        print("  steps {:>9.0f} - {:>9.0f}: {}".format(low, high, mean))


if __name__ == "__main__":
    main()
