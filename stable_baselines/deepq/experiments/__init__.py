"""Example scripts: train DQN on CartPole / MountainCar and replay the saved agents
(``python -m stable_baselines.deepq.experiments.train_cartpole --help``)."""
