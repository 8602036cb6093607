"""
Train SAC on Pendulum-v1 and report the deterministic score (20 evaluation episodes), steps/s and wall time.

Presets:

* ``zoo`` (default): the rl-baselines-zoo hyper-parameters of the shipped Pendulum-v0 agent
  (tests/data/legacy_models/sac/Pendulum-v0/config.yml: ent_coef 0.2, learning_rate 3e-3, batch_size 64,
  buffer_size 50000) with the performance issue's settings (train_freq 1, gradient_steps 1,
  learning_starts 100), 20 000 steps.
* ``defaults``: SAC's default hyper-parameters (learning_rate 3e-4, ent_coef 'auto', the same
  train_freq / gradient_steps / batch_size / learning_starts), 20 000 steps. Learns more slowly.

    python benchmarks/sac_pendulum.py --seeds 0 1 2
    python benchmarks/sac_pendulum.py --preset defaults --timesteps 50000
"""
import argparse

from bench_util import add_seed_arguments, evaluation_score, run_seeds, score_summary, timed_learn
from stable_baselines import SAC
from stable_baselines.common.gym_compat import make_env

PRESETS = {
    "zoo": (20000, dict(ent_coef=0.2, learning_rate=3e-3, buffer_size=50000, batch_size=64, learning_starts=100,
                        train_freq=1, gradient_steps=1)),
    "defaults": (20000, dict(train_freq=1, gradient_steps=1, batch_size=64, learning_starts=100)),
}


def run(preset: str, seed: int, timesteps: int = None) -> dict:
    default_steps, kwargs = PRESETS[preset]
    timesteps = timesteps or default_steps
    model = SAC("MlpPolicy", make_env("Pendulum-v1"), seed=seed, n_cpu_tf_sess=1, **kwargs)
    wall, _ = timed_learn(model, timesteps)
    mean, std = evaluation_score(model, "Pendulum-v1", seed, 20)
    return dict(seed=seed, score=mean, std=std, wall=wall, fps=timesteps / wall, timesteps=timesteps)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--preset", choices=sorted(PRESETS), default="zoo")
    add_seed_arguments(parser, None)
    args = parser.parse_args()
    results = run_seeds(args.seeds, lambda seed: run(args.preset, seed, args.timesteps),
                        "sac ({preset}) seed {seed}: {timesteps} steps, deterministic score {score:.1f} +/- {std:.1f}, "
                        "{fps:.0f} steps/s, wall {wall:.1f} s", preset=args.preset)
    print(score_summary("sac ({})".format(args.preset), results))


if __name__ == "__main__":
    main()
