"""
Generative Adversarial Imitation Learning (GAIL, https://arxiv.org/abs/1606.03476): TRPO trained on the
reward of a discriminator that learns to tell the expert's transitions from the policy's.
"""
from gymnasium import spaces

from stable_baselines.gail.adversary import TransitionClassifier
from stable_baselines.trpo_mpi import TRPO


class GAIL(TRPO):
    """
    Generative Adversarial Imitation Learning (GAIL)

    .. warning::

        Images are not yet handled properly by the current implementation


    :param policy: (ActorCriticPolicy or str) The policy model to use (MlpPolicy, CnnPolicy, CnnLstmPolicy, ...)
    :param env: (Gym environment or str) The environment to learn from (if registered in Gym, can be str)
    :param expert_dataset: (ExpertDataset) the dataset manager
    :param gamma: (float) the discount value
    :param timesteps_per_batch: (int) the number of timesteps to run per batch (horizon)
    :param max_kl: (float) the Kullback-Leibler loss threshold
    :param cg_iters: (int) the number of iterations for the conjugate gradient calculation
    :param lam: (float) GAE factor
    :param entcoeff: (float) the weight for the entropy loss
    :param cg_damping: (float) the compute gradient dampening factor
    :param vf_stepsize: (float) the value function stepsize
    :param vf_iters: (int) the value function's number iterations for learning
    :param hidden_size_adversary: (int) the hidden dimension for the MLP of the discriminator
    :param adversary_entcoeff: (float) the weight of the entropy loss of the discriminator
    :param g_step: (int) number of steps to train policy in each epoch
    :param d_step: (int) number of steps to train discriminator in each epoch
    :param d_stepsize: (float) the reward giver stepsize
    :param verbose: (int) the verbosity level: 0 none, 1 training information, 2 tensorflow debug
    :param _init_setup_model: (bool) Whether or not to build the network at the creation of the instance
    :param full_tensorboard_log: (bool) enable additional logging when using tensorboard
        WARNING: this logging can take a lot of space quickly
    :param kwargs: the other TRPO arguments (gamma, timesteps_per_batch, max_kl, cg_iters, lam, entcoeff,
        cg_damping, vf_stepsize, vf_iters, tensorboard_log, policy_kwargs, full_tensorboard_log, seed,
        n_cpu_tf_sess)
    """

    # the discriminator takes Box or Discrete actions (the manual's "Can I use?" table)
    _supported_action_spaces = (spaces.Box, spaces.Discrete)

    def __init__(self, policy, env, expert_dataset=None, hidden_size_adversary=100, adversary_entcoeff=0.001,
                 g_step=3, d_step=1, d_stepsize=3e-4, verbose=0, _init_setup_model=True, **kwargs):
        super().__init__(policy, env, verbose=verbose, _init_setup_model=False, **kwargs)
        self.using_gail = True
        self.expert_dataset = expert_dataset
        self.g_step = g_step
        self.d_step = d_step
        self.d_stepsize = d_stepsize
        self.hidden_size_adversary = hidden_size_adversary
        self.adversary_entcoeff = adversary_entcoeff
        for name in ("g_step", "d_step"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError("GAIL: {} must be a positive int, got {!r}".format(name, value))

        if _init_setup_model:
            self.setup_model()

    def _build_reward_giver(self):
        reward_giver = TransitionClassifier(self.observation_space, self.action_space, self.hidden_size_adversary,
                                            entcoeff=self.adversary_entcoeff)
        reward_giver.sess = self.sess
        return reward_giver

    def _check_expert_dataset(self) -> None:
        """Raise a clear error when there is no expert dataset or when it does not fit the environment."""
        if self.expert_dataset is None:
            raise ValueError("You must pass an expert dataset to GAIL for training "
                             "(GAIL(policy, env, expert_dataset=ExpertDataset(...)))")
        observations = getattr(self.expert_dataset, "observations", None)
        if observations is not None and self.observation_space is not None \
                and tuple(observations.shape[1:]) != tuple(self.observation_space.shape):
            # images are stored as paths: only check arrays of numbers
            if observations.dtype.kind in "fiub":
                raise ValueError("The expert dataset's observations have shape {} per step, the environment's "
                                 "observation space {} has shape {}".format(tuple(observations.shape[1:]),
                                                                           self.observation_space,
                                                                           self.observation_space.shape))
        actions = getattr(self.expert_dataset, "actions", None)
        if actions is not None and isinstance(self.action_space, spaces.Box) \
                and tuple(actions.shape[1:]) != tuple(self.action_space.shape):
            raise ValueError("The expert dataset's actions have shape {} per step, the environment's action space "
                             "{} has shape {}".format(tuple(actions.shape[1:]), self.action_space,
                                                      self.action_space.shape))
        if actions is not None and isinstance(self.action_space, spaces.Discrete) \
                and actions.reshape(len(actions), -1).shape[1] != 1:
            raise ValueError("The expert dataset's actions have shape {} per step, a Discrete action space needs one "
                             "action index per step (shape (1,) or ())".format(tuple(actions.shape[1:])))

    def learn(self, total_timesteps, callback=None, log_interval=100, tb_log_name="GAIL",
              reset_num_timesteps=True, progress_bar=False):
        """
        Return a trained model.

        :param total_timesteps: (int) The total number of samples to train on
        :param callback: (Union[callable, [callable], BaseCallback])
            function called at every steps with state of the algorithm.
            It takes the local and global variables. If it returns False, training is aborted.
            When the callback inherits from BaseCallback, you will have access
            to additional stages of the training (training start/end),
            please read the documentation for more details.
        :param log_interval: (int) The number of timesteps before logging.
        :param tb_log_name: (str) the name of the run for tensorboard log
        :param reset_num_timesteps: (bool) whether or not to reset the current timestep number (used in logging)
        :param progress_bar: (bool) display a progress bar over the timesteps (needs tqdm)
        :return: (BaseRLModel) the trained model
        """
        self._check_expert_dataset()
        return super().learn(total_timesteps, callback, log_interval, tb_log_name, reset_num_timesteps,
                             progress_bar=progress_bar)

    @classmethod
    def load(cls, load_path, env=None, custom_objects=None, **kwargs):
        """
        Load the model from file

        The expert dataset stored in the file (as the original library saved it) is restored as plain data
        (its loader threads start again when training needs them); ``GAIL.load(path, env,
        expert_dataset=ExpertDataset(...))`` (or ``custom_objects={'expert_dataset': dataset}``) replaces it.

        :param load_path: (str or file-like) the saved parameter location
        :param env: (Gym Environment) the new environment to run the loaded model on
            (can be None if you only need prediction from a trained model)
        :param custom_objects: (dict) Dictionary of objects to replace
            upon loading. If a variable is present in this dictionary as a
            key, it will not be deserialized and the corresponding item
            will be used instead. Similar to custom_objects in
            `keras.models.load_model`. Useful when you have an object in
            file that can not be deserialized.
        :param kwargs: extra arguments to change the model when loading
        """
        custom_objects = dict(custom_objects or {})
        if kwargs.get("expert_dataset") is not None:
            custom_objects.setdefault("expert_dataset", kwargs["expert_dataset"])
        return super(GAIL, cls).load(load_path, env=env, custom_objects=custom_objects, **kwargs)

    def save(self, save_path, cloudpickle=False):
        # saving stops the dataloader of the expert dataset (it cannot be pickled while running):
        # start it again so that saving during training (e.g. CheckpointCallback) does not break it
        dataset = self.expert_dataset
        had_loader = dataset is not None and getattr(dataset, "dataloader", None) is not None
        super().save(save_path, cloudpickle=cloudpickle)
        if had_loader and getattr(dataset, "dataloader", None) is None:
            self._initialize_dataloader()
