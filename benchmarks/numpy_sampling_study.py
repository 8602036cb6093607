"""
Does drawing the rollout actions of A2C / PPO2 in NumPy (the fast path's generator) learn as well as drawing them
in the TensorFlow graph?

Each run trains one seeded model on a cheap identity task with one variant of the sampler and records the mean
reward of 10 deterministic evaluation episodes (100 steps each, so 100 is the maximum). The two variants are then
compared over all seeds with Fisher's exact test (runs at the maximum) and the Mann-Whitney U test (the scores).

    python benchmarks/numpy_sampling_study.py run --task ppo2_box --seeds 0-99 --out /tmp/study.jsonl
    python benchmarks/numpy_sampling_study.py stats /tmp/study.jsonl [more files]
    python benchmarks/numpy_sampling_study.py checks        # the candidate mechanisms, checked one by one

Tasks: ``ppo2_box`` (IdentityEnvBox(eps=0.5), the settings of tests/test_a2c_ppo2.py with a smaller budget),
``ppo2_box_20k`` (the same with the test's budget, the configuration of the first-wave observation),
``ppo2_discrete`` (IdentityEnv(10), 512 steps: the scores still spread), ``ppo2_discrete_3k`` (the same, 3000 steps:
does a solved task stay solved), ``a2c_box``. Runs are appended to the output file one line each, so several
processes may share the seeds out and an interrupted study continues where it stopped.
"""
import argparse
import json
import os
import sys
from typing import Any, Dict, Iterable, List

for _name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import numpy as np  # noqa: E402

from stable_baselines import A2C, PPO2  # noqa: E402
from stable_baselines.common.evaluation import evaluate_policy  # noqa: E402
from stable_baselines.common.identity_env import IdentityEnv, IdentityEnvBox  # noqa: E402
from stable_baselines.common.vec_env import DummyVecEnv  # noqa: E402

# task name -> (model class, env factory, constructor keywords, timesteps)
TASKS: Dict[str, Any] = {
    "ppo2_box": (PPO2, lambda: IdentityEnvBox(eps=0.5),
                 dict(learning_rate=3e-3, ent_coef=0.0, n_steps=256, nminibatches=4, noptepochs=8), 12000),
    "ppo2_box_20k": (PPO2, lambda: IdentityEnvBox(eps=0.5),
                     dict(learning_rate=3e-3, ent_coef=0.0, n_steps=256, nminibatches=4, noptepochs=8), 20000),
    "ppo2_discrete": (PPO2, lambda: IdentityEnv(10), dict(gamma=0.7, learning_rate=1.5e-3, lam=0.8), 512),
    "ppo2_discrete_3k": (PPO2, lambda: IdentityEnv(10), dict(gamma=0.7, learning_rate=1.5e-3, lam=0.8), 3000),
    "a2c_box": (A2C, lambda: IdentityEnvBox(eps=0.5), dict(learning_rate=3e-3, ent_coef=0.0), 12000),
}
VARIANTS = ("graph", "numpy")


def make_model(task: str, variant: str, seed: int) -> Any:
    """:return: (ActorCriticRLModel) the seeded model of a task, sampling its rollouts with ``variant``"""
    model_class, env_factory, kwargs, _ = TASKS[task]
    model = model_class("MlpPolicy", DummyVecEnv([env_factory]), seed=seed, n_cpu_tf_sess=1, **kwargs)
    model.fast_path.sample_rollouts = variant == "numpy"
    model.fast_path.sampled_kinds = ("categorical", "gaussian")
    return model


def one_run(task: str, variant: str, seed: int) -> Dict[str, Any]:
    """:return: (dict) the evaluation score of one seeded training run"""
    model = make_model(task, variant, seed)
    model.learn(TASKS[task][3])
    eval_env = DummyVecEnv([TASKS[task][1]])
    eval_env.seed(10_000 + seed)
    score, _ = evaluate_policy(model, eval_env, n_eval_episodes=10)
    return {"task": task, "variant": variant, "seed": seed, "score": float(score)}


def _seed_range(text: str) -> List[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def _done(path: str) -> set:
    if not os.path.exists(path):
        return set()
    with open(path) as handle:
        return {(row["task"], row["variant"], row["seed"]) for row in map(json.loads, handle)}


def run(tasks: Iterable[str], seeds: List[int], out: str, worker: int, n_workers: int) -> None:
    """Train every (task, seed, variant) not yet in ``out`` that falls to this worker, appending the results."""
    done = _done(out)
    jobs = [(task, variant, seed) for task in tasks for seed in seeds for variant in VARIANTS]
    for index, job in enumerate(jobs):
        if (index // len(VARIANTS)) % n_workers != worker or job in done:
            continue
        row = one_run(*job)
        with open(out, "a") as handle:
            handle.write(json.dumps(row) + "\n")
        print(row, flush=True)


def stats(paths: List[str], top: float = 100.0) -> None:
    """Print, per task, the runs at the maximum and the median score of each variant, and the two tests."""
    from scipy.stats import fisher_exact, mannwhitneyu  # pylint: disable=import-outside-toplevel
    by_key: Dict[Any, Dict[str, Any]] = {}
    for path in paths:
        with open(path) as handle:
            for row in map(json.loads, handle):
                by_key.setdefault((row["task"], row["variant"], row["seed"]), row)
    rows = list(by_key.values())
    for task in sorted({row["task"] for row in rows}):
        scores = {variant: np.array([row["score"] for row in rows if row["task"] == task
                                     and row["variant"] == variant]) for variant in VARIANTS}
        if min(len(values) for values in scores.values()) == 0:
            continue
        at_top = {variant: int((values >= top).sum()) for variant, values in scores.items()}
        table = [[at_top[variant], len(scores[variant]) - at_top[variant]] for variant in VARIANTS]
        _, p_fisher = fisher_exact(table)
        _, p_mwu = mannwhitneyu(scores["graph"], scores["numpy"], alternative="two-sided")
        print("{}: ".format(task) + "; ".join(
            "{} {} of {} at {:g}, mean {:.2f}, median {:.1f}".format(
                variant, at_top[variant], len(scores[variant]), top, scores[variant].mean(),
                np.median(scores[variant])) for variant in VARIANTS)
            + "; Fisher p={:.3f}, Mann-Whitney p={:.3f}".format(p_fisher, p_mwu))


def checks(n_seeds: int = 20) -> None:
    """
    The candidate mechanisms of a difference, measured:

    - correlation of the NumPy generator's first normals with the identity env's first targets, over seeds;
    - the ratio of the first minibatch: the rollout's stored neg-log-likelihoods against the training graph's
      recomputation for the same observations and actions (1 means the clipped objective starts unbiased);
    - the generator is not re-seeded by a second ``learn``.
    """
    from stable_baselines.common.engine.numpy_forward import make_rng  # pylint: disable=import-outside-toplevel
    noise, targets = [], []
    for seed in range(n_seeds):
        model = make_model("ppo2_box", "numpy", seed)
        env = model.get_env()
        noise.append(make_rng(seed).standard_normal(200, dtype=np.float32))
        first = [env.reset()[0, 0]] + [env.step(np.zeros((1, 1)))[0][0, 0] for _ in range(199)]
        targets.append(np.array(first))
    corr = np.corrcoef(np.concatenate(noise), np.concatenate(targets))[0, 1]
    print("corr(NumPy normals, env targets) over {} seeds x 200 draws: {:+.4f} (1/sqrt(n) = {:.4f})".format(
        n_seeds, corr, 1 / np.sqrt(n_seeds * 200)))

    for task in ("ppo2_box", "ppo2_discrete"):
        model = make_model(task, "numpy", 0)
        rollout = model.runner.run() if model.runner is not None else None
        if rollout is None:
            model.learn(model.n_batch)  # builds the runner
            rollout = model.runner.run()
        train = model.train_model
        graph_nlp = model.sess.run(train.neglogp if hasattr(train, "neglogp") else None,
                                   {train.obs_ph: rollout.observations, train.action: rollout.actions})
        ratio = np.exp(rollout.neglogpacs.astype(np.float64) - graph_nlp)
        print("{}: stored neglogp dtype {}, max |ratio - 1| at the first minibatch {:.2e}".format(
            task, rollout.neglogpacs.dtype, float(np.abs(ratio - 1).max())))

    model = make_model("ppo2_box", "numpy", 3)
    before = model.fast_path.generator.bit_generator.state["state"]["state"]
    model.learn(256)
    middle = model.fast_path.generator.bit_generator.state["state"]["state"]
    model.learn(256, reset_num_timesteps=False)
    after = model.fast_path.generator.bit_generator.state["state"]["state"]
    print("generator advanced by learn: {}, and again by a second learn (not re-seeded): {}".format(
        before != middle, after not in (before, middle)))


def main(argv: List[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run_parser = sub.add_parser("run")
    run_parser.add_argument("--task", nargs="+", default=["ppo2_box"], choices=sorted(TASKS))
    run_parser.add_argument("--seeds", default="0-99")
    run_parser.add_argument("--out", required=True)
    run_parser.add_argument("--worker", type=int, default=0)
    run_parser.add_argument("--workers", type=int, default=1)
    stats_parser = sub.add_parser("stats")
    stats_parser.add_argument("paths", nargs="+")
    sub.add_parser("checks")
    args = parser.parse_args(argv)
    if args.command == "run":
        run(args.task, _seed_range(args.seeds), args.out, args.worker, args.workers)
    elif args.command == "stats":
        stats(args.paths)
    else:
        checks()


if __name__ == "__main__":
    main(sys.argv[1:])
