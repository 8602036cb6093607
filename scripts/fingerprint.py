"""
Behaviour fingerprints of the algorithms, to prove that a rewrite changed no behaviour.

For each configuration a fresh model is built with ``seed=0`` and ``n_cpu_tf_sess=1``, trained for a
few hundred steps with ``verbose=1`` and a recording callback, and summarised as:

- ``ops``: the TF operation names of the model's graph in creation order (a hash and the count);
- ``params``: a hash of every parameter after ``learn`` (name, dtype, shape and bytes);
- ``predict``: a hash of deterministic and stochastic actions on fixed observations;
- ``saved``: the keys of the saved ``data`` member and the ``parameter_list``;
- ``locals``: the names of the callback-visible locals (first ``_on_step``, and at the end);
- ``console``: the logger lines printed by ``learn``, time-dependent values removed.

Record before a change, record after, compare:

    python scripts/fingerprint.py record /tmp/fp_before.json              # every configuration
    python scripts/fingerprint.py record /tmp/fp_after.json --only a2c ppo2_lstm
    python scripts/fingerprint.py compare /tmp/fp_before.json /tmp/fp_after.json
    python scripts/fingerprint.py list

Each configuration runs in its own process (a crash or global state cannot leak into the next).
PPO1, TRPO and GAIL need mpi4py (one process, no ``mpirun``).
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from typing import Any, Callable, Dict, List

# the package of the checkout this script belongs to (not an installed or editable one elsewhere)
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
for _name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

# Values in the console table that depend on the clock or the machine, not on the algorithm.
_TIME_KEY = re.compile(r"(fps|time|elapsed|sec|wall|duration)", re.IGNORECASE)
_SECONDS = re.compile(r"[0-9.]+ ?(seconds|s\b)")


def _cartpole():
    from stable_baselines.common.gym_compat import make_env
    return make_env("CartPole-v1")


def _pendulum():
    from stable_baselines.common.gym_compat import make_env
    return make_env("Pendulum-v1")


def _image_env():
    """A small episodic env with uint8 image observations (40x40x2), for the CNN policies."""
    import gymnasium as gym
    import numpy as np

    class _Images(gym.Env):
        observation_space = gym.spaces.Box(0, 255, (40, 40, 2), dtype=np.uint8)
        action_space = gym.spaces.Discrete(3)

        def __init__(self):
            self._t = 0
            self._rng = np.random.RandomState(0)

        def _obs(self):
            return self._rng.randint(0, 256, size=(40, 40, 2)).astype(np.uint8)

        def reset(self, *, seed=None, options=None):
            self._t = 0
            return self._obs(), {}

        def step(self, action):
            self._t += 1
            return self._obs(), float(action == self._t % 3), self._t >= 12, False, {}

    return _Images()


def _vec(make: Callable, n_envs: int):
    from stable_baselines.bench import Monitor
    from stable_baselines.common.vec_env import DummyVecEnv
    return DummyVecEnv([lambda: Monitor(make(), None) for _ in range(n_envs)])


def _configs() -> Dict[str, Callable[[], tuple]]:
    """name -> builder returning (model, total_timesteps)."""
    import stable_baselines as sb

    common = dict(seed=0, n_cpu_tf_sess=1, verbose=1)

    def a2c():
        return sb.A2C("MlpPolicy", _vec(_cartpole, 2), **common), 300

    def a2c_lstm():
        return sb.A2C("MlpLstmPolicy", _vec(_cartpole, 2), n_steps=5, **common), 200

    def a2c_box():
        return sb.A2C("MlpPolicy", _vec(_pendulum, 2), lr_schedule="linear", **common), 300

    def ppo2():
        return sb.PPO2("MlpPolicy", _vec(_cartpole, 2), n_steps=64, nminibatches=4, **common), 384

    def ppo2_lstm():
        return sb.PPO2("MlpLnLstmPolicy", _vec(_cartpole, 2), n_steps=32, nminibatches=2, **common), 192

    def ppo2_box():
        return sb.PPO2("MlpPolicy", _vec(_pendulum, 1), n_steps=64, nminibatches=2, cliprange_vf=0.2,
                       **common), 256

    def acer():
        return sb.ACER("MlpPolicy", _vec(_cartpole, 2), n_steps=10, replay_start=20, **common), 400

    def acer_lstm():
        return sb.ACER("MlpLstmPolicy", _vec(_cartpole, 2), n_steps=10, replay_start=20, **common), 200

    def acktr():
        return sb.ACKTR("MlpPolicy", _vec(_cartpole, 2), n_steps=8, **common), 160

    def acktr_box():
        return sb.ACKTR("MlpPolicy", _vec(_pendulum, 1), n_steps=8, **common), 80

    def ppo1():
        return sb.PPO1("MlpPolicy", _cartpole(), timesteps_per_actorbatch=128, optim_batchsize=32, **common), 384

    def trpo():
        return sb.TRPO("MlpPolicy", _cartpole(), timesteps_per_batch=128, **common), 384

    def gail():
        from stable_baselines.gail import ExpertDataset
        import numpy as np
        rng = np.random.RandomState(0)
        obs = rng.randn(200, 4).astype(np.float32)
        data = dict(obs=obs, actions=rng.randint(0, 2, size=(200, 1)), rewards=np.ones(200),
                    episode_returns=np.array([100.0, 100.0]), episode_starts=np.eye(1, 200, 0)[0].astype(bool))
        path = os.path.join(tempfile.mkdtemp(), "expert.npz")
        np.savez(path, **data)
        dataset = ExpertDataset(expert_path=path, traj_limitation=-1, batch_size=32, verbose=0)
        return sb.GAIL("MlpPolicy", _cartpole(), dataset, timesteps_per_batch=128, **common), 384

    def dqn():
        return sb.DQN("MlpPolicy", _cartpole(), learning_starts=50, target_network_update_freq=50, **common), 300

    def dqn_prio_dueling():
        return sb.DQN("LnMlpPolicy", _cartpole(), learning_starts=50, prioritized_replay=True,
                      policy_kwargs=dict(dueling=True), **common), 300

    def dqn_param_noise():
        return sb.DQN("MlpPolicy", _cartpole(), learning_starts=50, param_noise=True, double_q=False,
                      **common), 300

    def dqn_cnn():
        return sb.DQN("CnnPolicy", _image_env(), learning_starts=30, buffer_size=500, batch_size=8, train_freq=2,
                      target_network_update_freq=20, exploration_fraction=0.5, **common), 120

    def dqn_prio_nodouble():
        return sb.DQN("MlpPolicy", _cartpole(), learning_starts=40, prioritized_replay=True, double_q=False,
                      train_freq=3, batch_size=16, policy_kwargs=dict(layers=[16, 16]), **common), 250

    def sac():
        return sb.SAC("MlpPolicy", _pendulum(), learning_starts=50, **common), 300

    def sac_fixed_ent():
        return sb.SAC("LnMlpPolicy", _pendulum(), learning_starts=50, ent_coef=0.1, **common), 200

    def sac_explore_vecnorm():
        from stable_baselines.common.noise import NormalActionNoise
        from stable_baselines.common.vec_env import DummyVecEnv, VecNormalize
        import numpy as np
        env = VecNormalize(DummyVecEnv([_pendulum]))
        return sb.SAC("MlpPolicy", env, learning_starts=40, train_freq=2, gradient_steps=3, random_exploration=0.2,
                      target_update_interval=2, action_noise=NormalActionNoise(np.zeros(1), 0.1 * np.ones(1)),
                      **common), 200

    def td3():
        from stable_baselines.common.noise import NormalActionNoise
        import numpy as np
        noise = NormalActionNoise(np.zeros(1), 0.1 * np.ones(1))
        return sb.TD3("MlpPolicy", _pendulum(), learning_starts=50, action_noise=noise, **common), 300

    def ddpg():
        from stable_baselines.common.noise import OrnsteinUhlenbeckActionNoise
        import numpy as np
        noise = OrnsteinUhlenbeckActionNoise(np.zeros(1), 0.2 * np.ones(1))
        return sb.DDPG("MlpPolicy", _pendulum(), action_noise=noise, nb_rollout_steps=50, nb_train_steps=10,
                       **common), 200

    def ddpg_param_norm():
        from stable_baselines.common.noise import AdaptiveParamNoiseSpec
        return sb.DDPG("LnMlpPolicy", _pendulum(), param_noise=AdaptiveParamNoiseSpec(), normalize_observations=True,
                       normalize_returns=True, nb_rollout_steps=50, nb_train_steps=10, **common), 200

    def ddpg_popart_eval():
        from stable_baselines.common.noise import NormalActionNoise
        import numpy as np
        eval_env = _pendulum()
        eval_env.reset(seed=1)
        return sb.DDPG("MlpPolicy", _pendulum(), normalize_returns=True, enable_popart=True,
                       action_noise=NormalActionNoise(np.zeros(1), 0.1 * np.ones(1)), eval_env=eval_env,
                       nb_eval_steps=30, nb_rollout_steps=40, nb_train_steps=8, batch_size=16, critic_l2_reg=0.01,
                       random_exploration=0.1, **common), 200

    def td3_delay():
        return sb.TD3("MlpPolicy", _pendulum(), learning_starts=30, train_freq=5, gradient_steps=5, policy_delay=3,
                      random_exploration=0.1, **common), 200

    def her_dqn_final():
        from stable_baselines.common.bit_flipping_env import BitFlippingEnv
        return sb.HER("MlpPolicy", BitFlippingEnv(4, max_steps=4), sb.DQN, n_sampled_goal=2,
                      goal_selection_strategy="final", learning_starts=10, **common), 150

    def her_td3_random():
        from stable_baselines.common.bit_flipping_env import BitFlippingEnv
        return sb.HER("MlpPolicy", BitFlippingEnv(3, continuous=True, max_steps=3), sb.TD3, n_sampled_goal=3,
                      goal_selection_strategy="random", learning_starts=15, **common), 150

    def her_ddpg_future():
        from stable_baselines.common.bit_flipping_env import BitFlippingEnv
        return sb.HER("MlpPolicy", BitFlippingEnv(3, continuous=True, max_steps=3), sb.DDPG, n_sampled_goal=2,
                      goal_selection_strategy="future", nb_rollout_steps=30, nb_train_steps=5, batch_size=16,
                      **common), 150

    def her_dqn():
        from stable_baselines.common.bit_flipping_env import BitFlippingEnv
        return sb.HER("MlpPolicy", BitFlippingEnv(5, max_steps=5), sb.DQN, n_sampled_goal=4,
                      goal_selection_strategy="future", learning_starts=20, **common), 200

    def her_sac():
        from stable_baselines.common.bit_flipping_env import BitFlippingEnv
        return sb.HER("MlpPolicy", BitFlippingEnv(3, continuous=True, max_steps=3), sb.SAC, n_sampled_goal=2,
                      goal_selection_strategy="episode", learning_starts=20, **common), 150

    return {name: fn for name, fn in locals().items() if callable(fn) and not name.startswith("_")}


def _hash(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part)
    return digest.hexdigest()[:16]


def _describe_locals(values: Dict[str, Any]) -> List[str]:
    return sorted("{}:{}".format(name, type(value).__name__) for name, value in values.items())


def _fingerprint_one(name: str) -> Dict[str, Any]:
    import numpy as np
    from stable_baselines.common.callbacks import BaseCallback

    class Recorder(BaseCallback):
        def __init__(self):
            super().__init__()
            self.first: List[str] = []
            self.last: List[str] = []

        def _on_step(self) -> bool:
            if not self.first:
                self.first = _describe_locals(self.locals)
            self.last = _describe_locals(self.locals)
            return True

    model, steps = _configs()[name]()
    recorder = Recorder()
    console = _capture(lambda: model.learn(steps, callback=recorder, log_interval=1))
    params = model.get_parameters()
    obs_space = model.observation_space
    observations = _sample_obs(obs_space)
    predictions = []
    for deterministic in (True, False):
        if isinstance(observations, list):
            action = [model.predict(one, deterministic=deterministic)[0] for one in observations]
        elif getattr(model.policy, "recurrent", False):
            n_envs = model.n_envs
            action, _ = model.predict(observations[:n_envs], deterministic=deterministic)
        else:
            action, _ = model.predict(observations, deterministic=deterministic)
        predictions.append(np.asarray(action).tobytes())
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.zip")
        model.save(path)
        with zipfile.ZipFile(path) as archive:
            data_keys = sorted(json.loads(archive.read("data")).keys())
            parameter_list = json.loads(archive.read("parameter_list"))
    ops = [op.name for op in model.graph.get_operations()]
    return {
        "ops": {"count": len(ops), "hash": _hash(*(op.encode() + b"\n" for op in ops))},
        "params": {key: _hash(str(value.dtype).encode(), str(value.shape).encode(), value.tobytes())
                   for key, value in params.items()},
        "predict": _hash(*predictions),
        "saved": {"data": data_keys, "parameter_list": parameter_list},
        "locals": {"first": recorder.first, "last": recorder.last},
        "console": _clean_console(console),
    }


def _sample_obs(space):
    import numpy as np
    space.seed(1)
    samples = [space.sample() for _ in range(8)]
    return samples if isinstance(samples[0], dict) else np.stack(samples)


def _capture(fn: Callable[[], Any]) -> str:
    """Run ``fn`` with file descriptor 1 redirected, return what was written there."""
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 1)
        try:
            fn()
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
        sink.seek(0)
        return sink.read().decode("utf-8", "replace")


def _clean_console(text: str) -> List[str]:
    lines = []
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.strip() and set(line.strip()) <= {"-"}:
            line = "<rule>"
        elif len(cells) == 2 and line.strip().startswith("|"):
            line = "| {} | {} |".format(cells[0], "<time>" if _TIME_KEY.search(cells[0]) else cells[1])
        lines.append(_SECONDS.sub("<time>", line).rstrip())
    return lines


def record(out: str, only: List[str]) -> int:
    names = only or sorted(_configs())
    results, failures = {}, 0
    for name in names:
        proc = subprocess.run([sys.executable, __file__, "_one", name], capture_output=True, text=True)
        if proc.returncode != 0:
            failures += 1
            results[name] = {"error": proc.stderr.strip().splitlines()[-1:] or ["exit {}".format(proc.returncode)]}
            print("{:18s} FAILED: {}".format(name, results[name]["error"][0]))
            continue
        results[name] = json.loads(proc.stdout.strip().splitlines()[-1])
        print("{:18s} ops {:5d}  params {}".format(name, results[name]["ops"]["count"],
                                                   _hash(json.dumps(results[name]["params"]).encode())))
    with open(out, "w") as handle:
        json.dump(results, handle, indent=1, sort_keys=True)
    return 1 if failures else 0


def compare(before: str, after: str) -> int:
    with open(before) as handle:
        old = json.load(handle)
    with open(after) as handle:
        new = json.load(handle)
    differences = 0
    for name in sorted(set(old) & set(new)):
        for part in sorted(set(old[name]) | set(new[name])):
            if old[name].get(part) != new[name].get(part):
                differences += 1
                print("{}: {} differs".format(name, part))
                if part == "console" and part in old[name] and part in new[name]:
                    for a, b in zip(old[name][part], new[name][part]):
                        if a != b:
                            print("   before: {}\n   after:  {}".format(a, b))
                            break
    only_one = sorted(set(old) ^ set(new))
    if only_one:
        print("recorded on one side only: {}".format(", ".join(only_one)))
    print("{} configurations compared, {} differences".format(len(set(old) & set(new)), differences))
    return 1 if differences else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("out")
    rec.add_argument("--only", nargs="*", default=[])
    cmp_ = sub.add_parser("compare")
    cmp_.add_argument("before")
    cmp_.add_argument("after")
    sub.add_parser("list")
    one = sub.add_parser("_one")
    one.add_argument("name")
    args = parser.parse_args()
    if args.command == "record":
        return record(args.out, args.only)
    if args.command == "compare":
        return compare(args.before, args.after)
    if args.command == "list":
        print("\n".join(sorted(_configs())))
        return 0
    result = _fingerprint_one(args.name)
    sys.stdout.write("\n" + json.dumps(result, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
