"""
The TensorFlow graph of DDPG: input normalisation, the actor and critic with their target copies, the
perturbed actors of parameter noise, Pop-Art, the losses and the MPI optimizers.

:class:`DDPGGraph` is a mixin of :class:`~stable_baselines.ddpg.ddpg.DDPG`; its steps create the operations in
a fixed order (the op names and the variable names are those of the original library, so its model files load
and seeded runs repeat). The tensor helpers at the top are re-exported by ``stable_baselines.ddpg.ddpg``.
"""
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from stable_baselines import logger
from stable_baselines.common import tf_util
from stable_baselines.common.model.off_policy import OffPolicyRLModel
from stable_baselines.common.mpi_adam import MpiAdam
from stable_baselines.common.mpi_running_mean_std import RunningMeanStd
from stable_baselines.common.structured_obs import is_structured_space
from stable_baselines.common.engine.target_updates import hard_updates, polyak_update
from stable_baselines.common.tf_compat import tf
from stable_baselines.ddpg.cycles import DDPGRun
from stable_baselines.ddpg.statistics import reduce_std, reduce_var, stats_ops_and_names

__all__ = ["normalize", "denormalize", "reduce_std", "reduce_var", "get_target_updates", "get_perturbable_vars",
           "get_perturbed_actor_updates", "DDPGGraph"]


# ----------------------------------------------------------------------------------------------------------------
# tensor helpers
# ----------------------------------------------------------------------------------------------------------------
def normalize(tensor: tf.Tensor, stats: Optional[RunningMeanStd]) -> tf.Tensor:
    """
    Standardise a tensor with running statistics.

    :param tensor: (TensorFlow Tensor) the values
    :param stats: (RunningMeanStd) their running mean and standard deviation (None: returned unchanged)
    :return: (TensorFlow Tensor) ``(tensor - mean) / std``
    """
    return tensor if stats is None else (tensor - stats.mean) / stats.std


def denormalize(tensor: tf.Tensor, stats: Optional[RunningMeanStd]) -> tf.Tensor:
    """
    Undo :func:`normalize`.

    :param tensor: (TensorFlow Tensor) standardised values
    :param stats: (RunningMeanStd) the running statistics they were standardised with (None: unchanged)
    :return: (TensorFlow Tensor) ``tensor * std + mean``
    """
    return tensor if stats is None else tensor * stats.std + stats.mean


def _clipped(tensor: tf.Tensor, bounds: Tuple[float, float]) -> tf.Tensor:
    """:return: (TensorFlow Tensor) ``tensor`` clipped to the (low, high) pair ``bounds``"""
    return tf.clip_by_value(tensor, bounds[0], bounds[1])


def _float_input(name: str, shape: Sequence[Optional[int]]) -> tf.Tensor:
    """:return: (TensorFlow Tensor) a new float32 placeholder"""
    return tf.placeholder(tf.float32, shape=shape, name=name)


def _mean_summary(name: str, tensor: tf.Tensor, histogram: bool) -> None:
    """Write the mean of ``tensor`` to tensorboard, and its histogram when asked."""
    tf.summary.scalar(name, tf.reduce_mean(tensor))
    if histogram:
        tf.summary.histogram(name, tensor)


def get_target_updates(_vars: List[tf.Variable], target_vars: List[tf.Variable], tau: float,
                       verbose: int = 0) -> Tuple[tf.Operation, tf.Operation]:
    """
    The two ways a target network follows its network: a plain copy, and the soft update
    ``target <- (1 - tau) * target + tau * source``.

    :param _vars: ([TensorFlow Variable]) the variables of the network
    :param target_vars: ([TensorFlow Variable]) those of the target network, in the same order
    :param tau: (float) the weight of the network in the soft update (0 < tau <= 1)
    :param verbose: (int) 2 prints every pair
    :return: (TensorFlow Operation, TensorFlow Operation) the copy, the soft update
    """
    if verbose >= 2:
        logger.info('setting up target updates ...')
    if len(_vars) != len(target_vars):
        raise RuntimeError("The target network does not mirror the network: {} variables vs {}".format(
            [var.name for var in _vars], [var.name for var in target_vars]))
    copies, soft = [], []
    # pair by pair (the copy, then the soft update): the order in which the original created these ops
    for source, target in zip(_vars, target_vars):
        if verbose >= 2:
            logger.info('  {} <- {}'.format(target.name, source.name))
        copies += hard_updates([source], [target])
        soft.append(polyak_update(source, target, tau))
    return tf.group(*copies), tf.group(*soft)


def get_perturbable_vars(scope: str) -> List[tf.Variable]:
    """
    :param scope: (str) a variable scope
    :return: ([TensorFlow Variable]) its trainable variables that parameter noise perturbs (all but LayerNorm's)
    """
    return [var for var in tf_util.get_trainable_vars(scope) if 'LayerNorm' not in var.name]


def get_perturbed_actor_updates(actor: str, perturbed_actor: str, param_noise_stddev: tf.Tensor,
                                verbose: int = 0) -> tf.Operation:
    """
    One operation that overwrites a copy of the actor with the actor plus Gaussian noise (LayerNorm parameters
    are copied without noise).

    :param actor: (str) the scope of the actor
    :param perturbed_actor: (str) the scope of its copy
    :param param_noise_stddev: (TensorFlow Tensor) the standard deviation of the noise
    :param verbose: (int) 2 prints every variable
    :return: (TensorFlow Operation) the update
    """
    sources = tf_util.get_globals_vars(actor)
    copies = tf_util.get_globals_vars(perturbed_actor)
    if len(sources) != len(copies) or \
            len(get_perturbable_vars(actor)) != len(get_perturbable_vars(perturbed_actor)):
        raise RuntimeError("The perturbed actor {} does not mirror the actor {}".format(perturbed_actor, actor))
    noisy = set(get_perturbable_vars(actor))
    assignments = []
    for source, copy in zip(sources, copies):
        if source in noisy:
            if verbose >= 2:
                logger.info('  {} <- {} + noise'.format(copy.name, source.name))
            noise = tf.random_normal(tf.shape(source), mean=0., stddev=param_noise_stddev)
            assignments.append(tf.assign(copy, source + noise))
        else:
            if verbose >= 2:
                logger.info('  {} <- {}'.format(copy.name, source.name))
            assignments.append(tf.assign(copy, source))
    return tf.group(*assignments)


def _n_weights(variables: List[tf.Variable]) -> Tuple[list, int]:
    """:return: ([[int]], int) the shapes of the variables and their total number of entries"""
    shapes = [var.get_shape().as_list() for var in variables]
    return shapes, int(sum(np.prod(shape, dtype=np.int64) for shape in shapes))


def _output_layer(scope: str) -> Tuple[tf.Variable, tf.Variable]:
    """
    :param scope: (str) the scope of a critic (``model/qf/`` or ``target/qf/``)
    :return: (TensorFlow Variable, TensorFlow Variable) the kernel and the bias of its one-unit output layer
    """
    found = [var for var in tf_util.get_trainable_vars(scope) if 'qf_output' in var.name]
    if len(found) != 2:
        raise RuntimeError("Pop-Art expects the kernel and the bias of the critic output layer, got {}"
                           .format([var.name for var in found]))
    if any(var.get_shape().as_list()[-1] != 1 for var in found):
        raise RuntimeError("Pop-Art expects a critic with one output, got {}".format([var.name for var in found]))
    return found[0], found[1]


class DDPGGraph(OffPolicyRLModel[DDPGRun]):
    """
    The graph-building steps of DDPG, in the order :meth:`_build_graph` runs them. The attributes they set are
    declared in ``DDPG.__init__`` (their types below).
    """

    # hyper-parameters (DDPG's constructor arguments)
    gamma: float
    tau: float
    normalize_observations: bool
    normalize_returns: bool
    enable_popart: bool
    observation_range: Tuple[float, float]
    return_range: Tuple[float, float]
    critic_l2_reg: float
    clip_norm: Optional[float]
    param_noise: Any
    full_tensorboard_log: bool
    # graph parts whose type matters beyond "a TensorFlow object" (None until setup_model)
    obs_rms: Optional[RunningMeanStd]
    ret_rms: Optional[RunningMeanStd]
    stats_ops: Optional[List[tf.Tensor]]
    renormalize_q_outputs_op: Optional[List[tf.Tensor]]
    stats_names: Optional[List[str]]
    actor_optimizer: Optional[MpiAdam]
    critic_optimizer: Optional[MpiAdam]
    target_params: Optional[List[tf.Variable]]
    obs_rms_params: Optional[List[tf.Variable]]
    ret_rms_params: Optional[List[tf.Variable]]

    def _build_graph(self) -> None:
        """Create every operation of the model in the current graph (``self.sess`` exists)."""
        with tf.variable_scope("input"):
            obs_in, next_obs_in = self._build_inputs()
        with tf.variable_scope("model"):
            self.actor_tf = self.policy_tf.make_actor(obs_in)
            self.normalized_critic_tf = self.policy_tf.make_critic(obs_in, self.actions)
            self.normalized_critic_with_actor_tf = self.policy_tf.make_critic(obs_in, self.actor_tf, reuse=True)
        if self.param_noise is not None:
            self._setup_param_noise(obs_in)
        with tf.variable_scope("target"):
            target_action = self.target_policy.make_actor(next_obs_in)
            target_value = self.target_policy.make_critic(next_obs_in, target_action)
        with tf.variable_scope("loss"):
            self._build_values(target_value)
            if self.enable_popart and self.normalize_returns:
                self._setup_popart()
            self._setup_stats()
            self._setup_target_network_updates()
        with tf.variable_scope("input_info"):
            _mean_summary('rewards', self.rewards, self.full_tensorboard_log)
            if self.param_noise is not None:
                tf.summary.scalar('param_noise_stddev', self.param_noise_stddev)
        with tf.variable_scope("Adam_mpi"):
            self._setup_actor_optimizer()
            self._setup_critic_optimizer()
            for name, loss in (('actor_loss', self.actor_loss), ('critic_loss', self.critic_loss)):
                tf.summary.scalar(name, loss)
        self._collect_parameters()

    def _new_policy(self) -> Any:
        """:return: (DDPGPolicy) a new instance of the policy class (one env, one step, any batch size)"""
        return self.policy(self.sess, self._built(self.observation_space, "observation_space"),
                           self._built(self.action_space, "action_space"), 1, 1, None, **self.policy_kwargs)

    def _build_inputs(self) -> Tuple[tf.Tensor, tf.Tensor]:
        """
        The running statistics, the policy objects (their placeholders) and the minibatch placeholders.

        :return: (TensorFlow Tensor, TensorFlow Tensor) the observations and next observations as the networks
            see them (normalised when asked, always clipped to ``observation_range``)
        """
        self.obs_rms = self.ret_rms = None
        structured = is_structured_space(self.observation_space)
        if structured and self.normalize_observations:
            raise ValueError("Error: DDPG(normalize_observations=True) does not normalize {} observation spaces; "
                             "use VecNormalize(norm_obs_keys=...) instead".format(type(self.observation_space).__name__))
        if self.normalize_observations:
            with tf.variable_scope('obs_rms'):
                self.obs_rms = RunningMeanStd(shape=tuple(self._built(self.observation_space,
                                                                      "observation_space").shape))
        if self.normalize_returns:
            with tf.variable_scope('ret_rms'):
                self.ret_rms = RunningMeanStd()

        self.policy_tf, self.target_policy = self._new_policy(), self._new_policy()
        self.obs_target, self.action_target = self.target_policy.obs_ph, self.target_policy.action_ph
        if structured:
            obs_in, next_obs_in = (tf.nest.map_structure(lambda entry: _clipped(entry, self.observation_range),
                                                         policy.processed_obs)
                                   for policy in (self.policy_tf, self.target_policy))
        else:
            obs_in, next_obs_in = (_clipped(normalize(policy.processed_obs, self.obs_rms), self.observation_range)
                                   for policy in (self.policy_tf, self.target_policy))

        if self.param_noise is not None:
            self.param_noise_actor = self._new_policy()
            self.obs_noise, self.action_noise_ph = self.param_noise_actor.obs_ph, self.param_noise_actor.action_ph
            self.adaptive_param_noise_actor = spare = self._new_policy()
            self.obs_adapt_noise, self.action_adapt_noise = spare.obs_ph, spare.action_ph

        self.obs_train, self.action_train_ph = self.policy_tf.obs_ph, self.policy_tf.action_ph
        column = (None, 1)
        self.terminals_ph = _float_input('terminals', column)
        self.rewards = _float_input('rewards', column)
        self.actions = _float_input('actions', (None,) + tuple(self._built(self.action_space, "action_space").shape))
        self.critic_target = _float_input('critic_target', column)
        self.param_noise_stddev = _float_input('param_noise_stddev', ())
        return obs_in, next_obs_in

    def _setup_param_noise(self, normalized_obs: tf.Tensor) -> None:
        """
        The two perturbed copies of the actor: ``noise/pi`` acts during rollouts, ``noise_adapt/pi`` measures
        how far a perturbation moves the actions (to adapt the noise scale).

        :param normalized_obs: (TensorFlow Tensor) the observations as the networks see them
        """
        with tf.variable_scope("noise"):
            self.perturbed_actor_tf = self.param_noise_actor.make_actor(normalized_obs)
        with tf.variable_scope("noise_adapt"):
            adaptive_actions = self.adaptive_param_noise_actor.make_actor(normalized_obs)
        with tf.variable_scope("noise_update_func"):
            if self.verbose >= 2:
                logger.info('setting up param noise')
            self.perturb_policy_ops, self.perturb_adaptive_policy_ops = (
                get_perturbed_actor_updates('model/pi/', copy, self.param_noise_stddev, verbose=self.verbose)
                for copy in ('noise/pi/', 'noise_adapt/pi/'))
            gap = self.actor_tf - adaptive_actions
            self.adaptive_policy_distance = tf.sqrt(tf.reduce_mean(tf.square(gap)))

    def _build_values(self, target_value: tf.Tensor) -> None:
        """
        The critic outputs in the scale of the returns (clipped to ``return_range`` first), and the TD target
        ``r + (1 - done) * gamma * Q_target(s', mu_target(s'))``.

        :param target_value: (TensorFlow Tensor) the (normalised) output of the target critic
        """
        self.critic_tf = denormalize(_clipped(self.normalized_critic_tf, self.return_range), self.ret_rms)
        self.critic_with_actor_tf = denormalize(_clipped(self.normalized_critic_with_actor_tf, self.return_range),
                                                self.ret_rms)
        next_value = denormalize(target_value, self.ret_rms)
        self.target_q = self.rewards + (1. - self.terminals_ph) * self.gamma * next_value
        _mean_summary('critic_target', self.critic_target, self.full_tensorboard_log)

    def _setup_popart(self) -> None:
        """
        Pop-Art (https://arxiv.org/pdf/1602.07714.pdf): after the return statistics change from (old_mean,
        old_std) to (mean, std), rescale the output layers of the critic and its target so that their
        denormalised outputs stay the same: ``w <- w * old_std / std``, ``b <- (b * old_std + old_mean - mean) / std``.
        """
        self.old_std = _float_input('old_std', [1])
        self.old_mean = _float_input('old_mean', [1])
        ret_rms = self._built(self.ret_rms, "ret_rms")
        mean, std = ret_rms.mean, ret_rms.std
        rescales = []
        for scope in ('model/qf/', 'target/qf/'):
            kernel, bias = _output_layer(scope)
            rescales.append(kernel.assign(kernel * self.old_std / std))
            rescales.append(bias.assign((bias * self.old_std + self.old_mean - mean) / std))
        self.renormalize_q_outputs_op = rescales

    def _setup_stats(self) -> None:
        """The reference statistics of the logger table (see :mod:`stable_baselines.ddpg.statistics`)."""
        self.stats_ops, self.stats_names = stats_ops_and_names(
            self.critic_tf, self.critic_with_actor_tf, self.actor_tf, self.ret_rms, self.obs_rms,
            self.perturbed_actor_tf if self.param_noise else None)

    def _setup_target_network_updates(self) -> None:
        """The copy into the target networks (at initialisation) and their soft update (after each train step)."""
        self.target_init_updates, self.target_soft_updates = get_target_updates(
            tf_util.get_trainable_vars('model/'), tf_util.get_trainable_vars('target/'), self.tau, self.verbose)

    def _setup_actor_optimizer(self) -> None:
        """The actor maximises the critic's value of its actions: loss ``-mean(Q(s, mu(s)))``."""
        if self.verbose >= 2:
            logger.info('setting up actor optimizer')
        actor_vars = tf_util.get_trainable_vars('model/pi/')
        self.actor_loss = -tf.reduce_mean(self.critic_with_actor_tf)
        self._log_sizes('actor', actor_vars)
        self.actor_grads = tf_util.flatgrad(self.actor_loss, actor_vars, clip_norm=self.clip_norm)
        self.actor_optimizer = MpiAdam(var_list=actor_vars, beta1=0.9, beta2=0.999, epsilon=1e-08, sess=self.sess)

    def _setup_critic_optimizer(self) -> None:
        """
        The critic regresses on the (normalised, clipped) TD target, plus ``critic_l2_reg`` times TF's
        ``l2_loss`` (half the squared sum) of its weights whose names hold no ``b`` (no bias, no LayerNorm beta)
        outside the output layer.
        """
        if self.verbose >= 2:
            logger.info('setting up critic optimizer')
        critic_vars = tf_util.get_trainable_vars('model/qf/')
        target = _clipped(normalize(self.critic_target, self.ret_rms), self.return_range)
        self.critic_loss = tf.reduce_mean(tf.square(self.normalized_critic_tf - target))
        if self.critic_l2_reg > 0.:
            penalised = [var for var in critic_vars if 'b' not in var.name and 'qf_output' not in var.name]
            if self.verbose >= 2:
                for var in penalised:
                    logger.info('  regularizing: {}'.format(var.name))
                logger.info('  applying l2 regularization with {}'.format(self.critic_l2_reg))
            self.critic_loss += tf.add_n([self.critic_l2_reg * tf.nn.l2_loss(var) for var in penalised])
        self._log_sizes('critic', critic_vars)
        self.critic_grads = tf_util.flatgrad(self.critic_loss, critic_vars, clip_norm=self.clip_norm)
        self.critic_optimizer = MpiAdam(var_list=critic_vars, beta1=0.9, beta2=0.999, epsilon=1e-08, sess=self.sess)

    def _log_sizes(self, name: str, variables: List[tf.Variable]) -> None:
        """With ``verbose >= 2``, print the shapes and the number of weights of a network."""
        if self.verbose >= 2:
            shapes, total = _n_weights(variables)
            logger.info('  {} shapes: {}'.format(name, shapes))
            logger.info('  {} params: {}'.format(name, total))

    def _collect_parameters(self) -> None:
        """The variable lists of ``get_parameter_list``, in the order of the original's files."""
        self.params = (tf_util.get_trainable_vars("model") + tf_util.get_trainable_vars('noise/')
                       + tf_util.get_trainable_vars('noise_adapt/'))
        self.target_params = tf_util.get_trainable_vars('target')
        everything = tf.global_variables()
        self.obs_rms_params = [var for var in everything if "obs_rms" in var.name]
        self.ret_rms_params = [var for var in everything if "ret_rms" in var.name]
