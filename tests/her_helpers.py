"""Helpers shared by the HER tests."""
import numpy as np


def success_rate(model, env, n_episodes=50, seed=1000):
    """
    :param model: (BaseRLModel) a trained model acting on the goal env's observations
    :param env: (gymnasium.Env) a goal env whose last info of an episode has ``is_success``
    :param n_episodes: (int) episodes played with deterministic actions
    :param seed: (int) seed of the first reset
    :return: (float) the share of episodes that ended in success
    """
    successes = []
    obs, _ = env.reset(seed=seed)
    for _ in range(n_episodes):
        done, info = False, {}
        while not done:
            action, _ = model.predict(obs, deterministic=True)
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        successes.append(float(info["is_success"]))
        obs, _ = env.reset()
    return float(np.mean(successes))
