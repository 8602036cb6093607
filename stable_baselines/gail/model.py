"""
GAIL (Ho & Ermon, 2016, https://arxiv.org/abs/1606.03476): TRPO whose reward comes from a discriminator
trained to tell the expert's transitions from the policy's.
"""
from typing import Any, Dict, Optional, Tuple, Type, Union

import numpy as np
from gymnasium import spaces

from stable_baselines.common.model.arguments import check_learning_rate, check_positive_int
from stable_baselines.common.policies import ActorCriticPolicy
from stable_baselines.common.structured_obs import check_batch_entries, is_structured_space, pack_batch, packed_space
from stable_baselines.gail.adversary import TransitionClassifier
from stable_baselines.gail.dataset.dataset import ExpertDataset
from stable_baselines.trpo_mpi import TRPO


class GAIL(TRPO):
    """
    Generative Adversarial Imitation Learning (GAIL).

    .. warning::

        Image observations are not handled properly yet.

    With a Dict or Tuple observation space (``MultiInputPolicy``), the discriminator reads the packed observation
    row (every entry flattened, side by side; see :mod:`stable_baselines.common.structured_obs`), and the expert
    dataset holds a dict (or tuple) of arrays with the entries of the space.

    :param policy: (ActorCriticPolicy or str) the policy (MlpPolicy, CnnPolicy, CnnLstmPolicy, ...)
    :param env: (Gym environment or str) the environment to learn from (a registered id works too)
    :param expert_dataset: (ExpertDataset) the expert transitions the discriminator learns from
    :param gamma: (float) discount factor
    :param timesteps_per_batch: (int) steps collected per TRPO update (horizon)
    :param max_kl: (float) bound on the Kullback-Leibler divergence of a policy update
    :param cg_iters: (int) iterations of the conjugate gradient
    :param lam: (float) GAE lambda
    :param entcoeff: (float) weight of the policy's entropy bonus
    :param cg_damping: (float) damping added to the Fisher-vector product
    :param vf_stepsize: (float) learning rate of the value function
    :param vf_iters: (int) value function updates per batch
    :param hidden_size_adversary: (int) width of the discriminator's hidden layers
    :param adversary_entcoeff: (float) weight of the discriminator's entropy bonus
    :param g_step: (int) policy updates per epoch
    :param d_step: (int) discriminator updates per epoch
    :param d_stepsize: (float) learning rate of the discriminator
    :param verbose: (int) 0 silent, 1 training information, 2 TensorFlow debug
    :param _init_setup_model: (bool) build the network when the instance is created
    :param full_tensorboard_log: (bool) log more to TensorBoard (which can take a lot of disk space)
    :param kwargs: the other TRPO arguments (gamma, timesteps_per_batch, max_kl, cg_iters, lam, entcoeff,
        cg_damping, vf_stepsize, vf_iters, tensorboard_log, policy_kwargs, full_tensorboard_log, seed,
        n_cpu_tf_sess)
    """

    algorithm_name = "GAIL"
    # the discriminator takes Box or Discrete actions (the manual's "Can I use?" table)
    _supported_action_spaces = (spaces.Box, spaces.Discrete)

    def __init__(self, policy: Union[Type[ActorCriticPolicy], str], env: Any,
                 expert_dataset: Optional[ExpertDataset] = None, hidden_size_adversary: int = 100,
                 adversary_entcoeff: float = 0.001, g_step: int = 3, d_step: int = 1, d_stepsize: float = 3e-4,
                 verbose: int = 0, _init_setup_model: bool = True, **kwargs: Any) -> None:
        super().__init__(policy, env, verbose=verbose, _init_setup_model=False, **kwargs)
        self.using_gail = True
        self.expert_dataset = expert_dataset
        self.g_step = check_positive_int("g_step", g_step)
        self.d_step = check_positive_int("d_step", d_step)
        self.d_stepsize = check_learning_rate(d_stepsize, name="d_stepsize", schedule_allowed=False)
        self.hidden_size_adversary = hidden_size_adversary
        self.adversary_entcoeff = adversary_entcoeff
        if _init_setup_model:
            self.setup_model()

    def _build_reward_giver(self) -> TransitionClassifier:
        """The discriminator, bound to this model's session."""
        observation_space = self.observation_space
        if observation_space is not None and is_structured_space(observation_space):
            observation_space = packed_space(observation_space)
        discriminator = TransitionClassifier(observation_space, self.action_space,
                                             self.hidden_size_adversary, entcoeff=self.adversary_entcoeff)
        discriminator.sess = self.sess
        return discriminator

    def _check_expert_dataset(self) -> None:
        """Raise a ValueError when there is no expert dataset or when its shapes do not fit the spaces."""
        dataset = self.expert_dataset
        if dataset is None:
            raise ValueError("You must pass an expert dataset to GAIL for training "
                             "(GAIL(policy, env, expert_dataset=ExpertDataset(...)))")
        observations = getattr(dataset, "observations", None)
        # image datasets store paths (strings): only arrays of numbers are checked
        if self.observation_space is not None and is_structured_space(self.observation_space):
            check_batch_entries(observations, self.observation_space, "the expert dataset's observations")
        elif isinstance(observations, (dict, tuple)):
            raise ValueError("The expert dataset's observations are structured (a {} of arrays), the environment's "
                             "observation space {} is not".format(type(observations).__name__,
                                                                  self.observation_space))
        elif observations is not None and self.observation_space is not None \
                and observations.dtype.kind in "fiub" \
                and tuple(observations.shape[1:]) != tuple(self.observation_space.shape):
            raise ValueError("The expert dataset's observations have shape {} per step, the environment's "
                             "observation space {} has shape {}".format(tuple(observations.shape[1:]),
                                                                       self.observation_space,
                                                                       self.observation_space.shape))
        actions = getattr(dataset, "actions", None)
        if actions is None:
            return
        step_shape = tuple(actions.shape[1:])
        if isinstance(self.action_space, spaces.Box) and step_shape != tuple(self.action_space.shape):
            raise ValueError("The expert dataset's actions have shape {} per step, the environment's action space "
                             "{} has shape {}".format(step_shape, self.action_space, self.action_space.shape))
        if isinstance(self.action_space, spaces.Discrete) and actions.reshape(len(actions), -1).shape[1] != 1:
            raise ValueError("The expert dataset's actions have shape {} per step, a Discrete action space needs one "
                             "action index per step (shape (1,) or ())".format(step_shape))

    def learn(self, total_timesteps: int, callback: Any = None, log_interval: int = 100, tb_log_name: str = "GAIL",
              reset_num_timesteps: bool = True, progress_bar: bool = False) -> "GAIL":
        """
        Train the policy and the discriminator; the expert dataset must be set.

        :param total_timesteps: (int) number of environment steps to train for
        :param callback: (Union[callable, [callable], BaseCallback]) called at every step with the algorithm's
            local and global variables; returning False stops training. A BaseCallback also sees the
            other stages of training (start, end, rollouts); see the callbacks documentation
        :param log_interval: (int) number of updates between two log outputs
        :param tb_log_name: (str) name of the TensorBoard run
        :param reset_num_timesteps: (bool) restart the step counter used in logging
        :param progress_bar: (bool) display a progress bar over the timesteps (needs tqdm)
        :return: (BaseRLModel) the trained model
        """
        self._check_expert_dataset()
        super().learn(total_timesteps, callback, log_interval, tb_log_name, reset_num_timesteps,
                      progress_bar=progress_bar)
        return self

    def _next_expert_batch(self) -> Tuple[np.ndarray, np.ndarray]:
        """:return: (np.ndarray, np.ndarray) the next expert minibatch, structured observations packed into rows"""
        observations, actions = super()._next_expert_batch()
        space = self.observation_space
        if space is not None and is_structured_space(space):
            observations = pack_batch(observations, space)
        return observations, actions

    @classmethod
    def load(cls, load_path: Any, env: Any = None, custom_objects: Optional[Dict[str, Any]] = None,
             **kwargs: Any) -> "GAIL":
        """
        Load a model from a file.

        The expert dataset stored in the file (as the original library saved it) is restored as plain data
        (its loader threads start again when training needs them); ``GAIL.load(path, env,
        expert_dataset=ExpertDataset(...))`` (or ``custom_objects={'expert_dataset': dataset}``) replaces it.

        :param load_path: (str or file-like) where the model was saved
        :param env: (Gym Environment) the environment the loaded model acts in (None is enough to predict)
        :param custom_objects: (dict) values used instead of the stored ones for the keys they name, without
            unpickling those (as ``custom_objects`` of ``keras.models.load_model``); for objects that
            cannot be restored from the file
        :param kwargs: attributes to change on the loaded model
        :return: (GAIL) the loaded model
        """
        custom_objects = dict(custom_objects or {})
        if kwargs.get("expert_dataset") is not None:
            custom_objects.setdefault("expert_dataset", kwargs["expert_dataset"])
        return super(GAIL, cls).load(load_path, env=env, custom_objects=custom_objects, **kwargs)

    def save(self, save_path: Any, cloudpickle: bool = False, include_training_state: bool = False) -> None:
        """
        Save the model; an expert dataset whose loader was running gets it running again afterwards (saving
        must stop it to pickle the dataset), so that saving during training does not break training.

        :param save_path: (str or file-like) where to save
        :param cloudpickle: (bool) use the old cloudpickle format instead of the zip archive
        :param include_training_state: (bool) also store what continuing training needs (see
            :meth:`BaseRLModel.save`)
        """
        dataset = self.expert_dataset
        loader_was_running = dataset is not None and getattr(dataset, "dataloader", None) is not None
        super().save(save_path, cloudpickle=cloudpickle, include_training_state=include_training_state)
        if loader_was_running and getattr(dataset, "dataloader", None) is None:
            self._initialize_dataloader()

