"""
Train DDPG on Pendulum-v1 for 50 000 steps and report the deterministic score over 10 episodes (also every
``--eval-every`` steps during training), steps/s and wall time, with Gaussian action noise (``--noise normal``),
Ornstein-Uhlenbeck action noise (``--noise ou``) or adaptive parameter noise (``--noise param``).

Two sets of hyper-parameters (``--settings``):

- ``zoo``: the rl-baselines-zoo settings of its DDPG Pendulum agent (the one in
  tests/data/legacy_models/ddpg): MlpPolicy, buffer 50 000 and the library defaults (nb_rollout_steps 100,
  nb_train_steps 50, batch_size 128, actor_lr 1e-4, critic_lr 1e-3, tau 0.001, gamma 0.99), noise stddev 0.1.
  These learn slowly: they do not reach -250 within 50 000 steps, and not on every seed within 100 000
  (the zoo trained 200 000 steps).
- ``tuned`` (default): gamma 0.98, one gradient step per environment step (nb_train_steps = nb_rollout_steps
  = 100), tau 0.005, actor_lr 1e-4, critic_lr 1e-3, batch_size 128, noise stddev 0.2 (as the later zoo
  settings of DDPG/TD3 on Pendulum: gamma 0.98, a 1:1 update ratio, a faster target network).

    python benchmarks/ddpg_pendulum.py --noise normal --seeds 0
    python benchmarks/ddpg_pendulum.py --noise param --policy LnMlpPolicy --extra '{"random_exploration": 0.1}'
    python benchmarks/ddpg_pendulum.py --settings zoo --noise ou

Measured on 2026-11-21 (seed 0, 50 000 steps, final score over 10 deterministic episodes; a shared, heavily
loaded 2-core machine, so steps/s are pessimistic). DDPG on Pendulum is seed-sensitive and its score oscillates
during training (intermediate 5-episode scores in brackets):

- tuned, MlpPolicy, Gaussian noise 0.2: -174.3 +/- 118.5 (-250 at 5k, -709 at 10k, -243 at 40k, -166 at 45k),
  52 steps/s, 966 s;
- tuned, LnMlpPolicy, random_exploration 0.1, adaptive parameter noise 0.2: -138.3 +/- 88.2 (-1076 at 10k,
  -170 at 20k, -201 at 30k, -286 at 40k, -137 at 45k), 25 steps/s, 2019 s;
- tuned, LnMlpPolicy, random_exploration 0.1, Gaussian noise 0.2: -340.9 +/- 332.9 (-300 at 10k, -157 at 35k,
  -167 at 50k), 54 steps/s, 921 s;
- tuned, MlpPolicy, parameter noise 0.2 (no random_exploration): -1429 at 10k (stopped);
- zoo, OU noise 0.1: -964.9 +/- 491.3, 37 steps/s, 1344 s; zoo, parameter noise 0.1: -863.4 +/- 71.9, 45 steps/s.

Measured on 2026-12-02, zoo settings, OU noise 0.1, 100 000 steps (``--timesteps 100000``), final score over
10 deterministic episodes, beside the original library's own DDPG (its 2.10.2 wheel run under
tensorflow.compat.v1 and gymnasium, as for tests/data/legacy_models/original_2_10; same seeds, same settings):

- ours: seed 0 -169.4 +/- 126.9, seed 1 -608.8 +/- 601.8, seed 2 -195.6 +/- 85.6; 290-328 steps/s;
- the original: seed 0 -125.0 +/- 92.0, seed 1 -252.7 +/- 134.7, seed 2 -192.2 +/- 76.3; 158-166 steps/s.

Scores swing by hundreds between evaluations in both (5-episode scores every 10 000 steps, ours seed 1:
-1472 -1329 -1217 -519 -955 -893 -766 -405 -1194 -551; the original's seed 1: -1452 -1055 -480 -457 -179 -176
-315 -182 -284 -290; seed 0, ours: -1465 ... -162 -183 -379 -287, the original's: ... -119 -156 -370 -281).
The two runs differ only in the stream of minibatch slots (the original draws them with Python's ``random``,
we with NumPy's): with the same draws, our run is the original's to 3e-7
(tests/test_ddpg.py::test_training_matches_the_original_libraries_training).
"""
import argparse
import json
import time
from typing import Optional

import numpy as np

from bench_util import evaluation_score, run_seeds, score_summary, timed_learn
from stable_baselines.common.callbacks import BaseCallback
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.gym_compat import make_env
from stable_baselines.common.noise import AdaptiveParamNoiseSpec, NormalActionNoise, OrnsteinUhlenbeckActionNoise
from stable_baselines.ddpg import DDPG


class _PeriodicEval(BaseCallback):
    """Print the deterministic score every ``every`` steps (evaluation time is excluded from the wall time)."""

    def __init__(self, every: int, n_episodes: int = 5):
        super(_PeriodicEval, self).__init__()
        self.every = every
        self.n_episodes = n_episodes
        self.eval_time = 0.0
        self.env = make_env("Pendulum-v1")

    def _on_step(self) -> bool:
        if self.every > 0 and self.num_timesteps % self.every == 0:
            start = time.time()
            self.env.reset(seed=10000 + self.num_timesteps)
            mean, _ = evaluate_policy(self.model, self.env, n_eval_episodes=self.n_episodes, deterministic=True)
            self.eval_time += time.time() - start
            print("  step {:6d}: deterministic score {:.1f}".format(self.num_timesteps, mean), flush=True)
        return True


SETTINGS = {
    "zoo": dict(buffer_size=50000),
    "tuned": dict(buffer_size=50000, gamma=0.98, nb_rollout_steps=100, nb_train_steps=100, batch_size=128, tau=0.005,
                  actor_lr=1e-4, critic_lr=1e-3),
}
NOISE_STD = {"zoo": 0.1, "tuned": 0.2}


def run(seed: int, noise: str, settings: str = "tuned", timesteps: int = 50000, n_eval_episodes: int = 10,
        eval_every: int = 10000, policy: str = "MlpPolicy", extra: Optional[dict] = None) -> dict:
    """
    :param seed: (int) the seed of the model and of the training env
    :param noise: (str) 'normal', 'ou' (action noise) or 'param' (adaptive parameter noise)
    :param settings: (str) 'zoo' or 'tuned' (see the module documentation)
    :param timesteps: (int) the number of training steps
    :param n_eval_episodes: (int) the number of deterministic evaluation episodes at the end
    :param eval_every: (int) print an intermediate score every that many steps (0: never)
    :param policy: (str) the policy (MlpPolicy or LnMlpPolicy)
    :param extra: (dict) DDPG arguments that override the settings
    :return: (dict) seed, score, std, wall (s), fps (training steps per second)
    """
    env = make_env("Pendulum-v1")
    n_actions = env.action_space.shape[-1]
    std = NOISE_STD[settings]
    action_noise, param_noise = None, None
    if noise == "ou":
        action_noise = OrnsteinUhlenbeckActionNoise(mean=np.zeros(n_actions), sigma=std * np.ones(n_actions))
    elif noise == "normal":
        action_noise = NormalActionNoise(mean=np.zeros(n_actions), sigma=std * np.ones(n_actions))
    elif noise == "param":
        param_noise = AdaptiveParamNoiseSpec(initial_stddev=std, desired_action_stddev=std)
    else:
        raise ValueError("noise must be 'normal', 'ou' or 'param', got {!r}".format(noise))
    # the model builds its training env from the id (as the zoo does)
    model = DDPG(policy, "Pendulum-v1", action_noise=action_noise, param_noise=param_noise, seed=seed, n_cpu_tf_sess=1,
                 **dict(SETTINGS[settings], **(extra or {})))
    callback = _PeriodicEval(eval_every)
    wall, _ = timed_learn(model, timesteps, callback=callback)
    wall -= callback.eval_time
    mean, std = evaluation_score(model, "Pendulum-v1", seed, n_eval_episodes)
    return dict(seed=seed, noise=noise, settings=settings, score=mean, std=std, wall=wall, fps=timesteps / wall)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--noise", choices=["normal", "ou", "param"], default="normal")
    parser.add_argument("--settings", choices=sorted(SETTINGS), default="tuned")
    parser.add_argument("--policy", choices=["MlpPolicy", "LnMlpPolicy"], default="MlpPolicy")
    parser.add_argument("--extra", type=json.loads, default=None,
                        help='JSON dict of DDPG arguments overriding the settings, e.g. \'{"random_exploration": 0}\'')
    parser.add_argument("--timesteps", type=int, default=50000)
    parser.add_argument("--eval-every", type=int, default=10000)
    args = parser.parse_args()
    results = run_seeds(args.seeds, lambda seed: run(seed, args.noise, args.settings, args.timesteps,
                                                     eval_every=args.eval_every, policy=args.policy, extra=args.extra),
                        "ddpg ({settings} settings, {noise} noise) Pendulum-v1 seed {seed}: deterministic score "
                        "{score:.1f} +/- {std:.1f}, {fps:.0f} steps/s, wall {wall:.1f} s")
    print(score_summary("ddpg ({}, {})".format(args.settings, args.noise), results))

if __name__ == "__main__":
    main()
