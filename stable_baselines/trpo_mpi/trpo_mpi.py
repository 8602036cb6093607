"""
Trust Region Policy Optimization (TRPO, https://arxiv.org/abs/1502.05477), parallelized with MPI.

Each MPI rank collects ``timesteps_per_batch`` steps with its own environment; the policy gradient,
the Fisher-vector products, the losses and the value-function gradients are averaged over the ranks
(``MPI.COMM_WORLD``), so every rank applies the same update and the parameters stay identical.

The policy step is the natural-gradient step of the paper: conjugate gradient on the (damped)
Fisher-vector product gives the search direction, scaled to the KL radius ``max_kl``, then a
backtracking line search accepts the first step that improves the surrogate objective and keeps
the mean KL divergence below ``1.5 * max_kl``. The value function is trained separately with Adam
(:class:`MpiAdam`). GAIL (``stable_baselines.gail``) is TRPO with a learned reward.
"""
import os
from typing import Any, Callable, ContextManager, Dict, List, Optional, Sequence, Tuple, Type, Union

import numpy as np
from gymnasium import spaces
from mpi4py import MPI

from stable_baselines import logger
from stable_baselines.common import dataset, tf_util
from stable_baselines.common.base_class import ActorCriticRLModel, SetVerbosity
from stable_baselines.common.cg import conjugate_gradient
from stable_baselines.common.console_util import fmt_row, timed
from stable_baselines.common.math_util import explained_variance
from stable_baselines.common.misc_util import zipsame
from stable_baselines.common.model.arguments import check_rollout_arguments
from stable_baselines.common.model.pretraining import pretrain_placeholders
from stable_baselines.common.model.on_policy import MODEL_SETTINGS_DOC, learn_locals
from stable_baselines.common.model.segments import SegmentProgress, current_and_old_policies, log_segment_rewards
from stable_baselines.common.mpi_adam import MpiAdam
from stable_baselines.common.storage.persistence import EXPERT_DATASET, NONE
from stable_baselines.common.policies import ActorCriticPolicy, RecurrentActorCriticPolicy
from stable_baselines.common.runners import add_vtarg_and_adv, traj_segment_generator
from stable_baselines.common.model.summaries import input_info_summaries
from stable_baselines.common.tf_compat import tf

# the spaces TRPO handles (the manual's "Can I use?" table)
SUPPORTED_SPACES = (spaces.Discrete, spaces.Box, spaces.MultiDiscrete, spaces.MultiBinary)


def _space_names(space_types: Sequence[type]) -> str:
    return ", ".join(space_type.__name__ for space_type in space_types)


class _RolloutRewardGiver(object):
    """
    What GAIL's rollouts ask for one reward per step: the discriminator's reward computed in NumPy from a
    copy of its weights (no session call per step), taken again by :meth:`refresh` after every
    discriminator update. Falls back to the graph when the classifier has no NumPy copy.

    :param reward_giver: (TransitionClassifier) the discriminator
    :param sess: (tf.Session) the session holding its variables
    """

    def __init__(self, reward_giver: Any, sess: Any) -> None:
        self.reward_giver = reward_giver
        self.sess = sess
        self._reward_fn: Optional[Callable[[np.ndarray, np.ndarray], np.ndarray]] = None
        self.refresh()

    def refresh(self) -> None:
        """Read the discriminator's current weights and observation statistics."""
        make_fn = getattr(self.reward_giver, "numpy_reward_function", None)
        # STABLE_BASELINES_NUMPY_FORWARD=0 keeps every forward pass in the graph (as for the policies)
        enabled = os.environ.get("STABLE_BASELINES_NUMPY_FORWARD", "1").strip().lower() not in ("0", "false", "no",
                                                                                                  "off")
        self._reward_fn = make_fn(self.sess) if (make_fn is not None and enabled) else None

    def get_reward(self, obs: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """
        :param obs: (np.ndarray) the observation(s)
        :param actions: (np.ndarray) the action(s)
        :return: (np.ndarray) the reward(s), as TransitionClassifier.get_reward
        """
        if self._reward_fn is None:
            return self.reward_giver.get_reward(obs, actions)
        return self._reward_fn(obs, actions)


class TRPO(ActorCriticRLModel):
    __doc__ = """
    Trust Region Policy Optimization (Schulman et al. 2015, https://arxiv.org/abs/1502.05477): a natural-gradient
    policy step limited to a KL radius, with a separately fitted value function; MPI workers average everything.

    :param policy: (ActorCriticPolicy or str) policy class, or the registered name of one (MlpPolicy, CnnPolicy, ...)
    :param env: (Gym environment or str) environment to train on, or a registered environment id
    :param gamma: (float) discount factor
    :param timesteps_per_batch: (int) steps each worker collects between two policy updates
    :param max_kl: (float) trust-region radius: the mean KL divergence between the old and the new policy the
        step is scaled to (a step is rejected above 1.5 times this value)
    :param cg_iters: (int) iterations of the conjugate gradient solving for the step direction
    :param lam: (float) GAE lambda, trading the bias of the advantage estimate against its variance
    :param entcoeff: (float) weight of the entropy bonus in the surrogate objective
    :param cg_damping: (float) multiple of the identity added to the Fisher matrix (keeps the solve stable)
    :param vf_stepsize: (float) Adam step size of the value function
    :param vf_iters: (int) passes of the value-function fit over each batch
""" + MODEL_SETTINGS_DOC

    # action spaces the model accepts (GAIL restricts this)
    algorithm_name = "TRPO"
    _supported_action_spaces: Tuple[type, ...] = SUPPORTED_SPACES

    _supports_action_masks = True
    _saved_settings = ("gamma", "timesteps_per_batch", "max_kl", "cg_iters", "lam", "entcoeff", "cg_damping",
                       "vf_stepsize", "vf_iters", "hidden_size_adversary", "adversary_entcoeff", "expert_dataset",
                       "g_step", "d_step", "d_stepsize", "using_gail")
    # TRPO files of library versions before 2.5 also hold these (unused) settings
    _legacy_settings = ("checkpoint_dir", "pretrained_weight", "reward_giver", "save_per_iter", "task_name")
    _setting_kinds = {"expert_dataset": EXPERT_DATASET | NONE}

    def __init__(self, policy: Union[Type[ActorCriticPolicy], str], env: Any, gamma: float = 0.99,
                 timesteps_per_batch: int = 1024, max_kl: float = 0.01, cg_iters: int = 10, lam: float = 0.98,
                 entcoeff: float = 0.0, cg_damping: float = 1e-2, vf_stepsize: float = 3e-4, vf_iters: int = 3,
                 verbose: int = 0, tensorboard_log: Optional[str] = None, _init_setup_model: bool = True,
                 policy_kwargs: Optional[Dict[str, Any]] = None, full_tensorboard_log: bool = False,
                 seed: Optional[int] = None, n_cpu_tf_sess: Optional[int] = 1) -> None:
        check_rollout_arguments("timesteps_per_batch", timesteps_per_batch, gamma, vf_stepsize, "vf_stepsize")
        super().__init__(policy=policy, env=env, verbose=verbose, requires_vec_env=False,
                                   _init_setup_model=_init_setup_model, policy_kwargs=policy_kwargs,
                                   seed=seed, n_cpu_tf_sess=n_cpu_tf_sess)

        self.using_gail = False
        self.gamma = gamma
        self.timesteps_per_batch = timesteps_per_batch
        self.max_kl = max_kl
        self.cg_iters = cg_iters
        self.cg_damping = cg_damping
        self.lam = lam
        self.entcoeff = entcoeff
        self.vf_stepsize = vf_stepsize
        self.vf_iters = vf_iters
        self.tensorboard_log = tensorboard_log
        self.full_tensorboard_log = full_tensorboard_log

        # settings of the GAIL subclass; a plain TRPO saves them too, with these values, as the original did
        self.hidden_size_adversary = 100
        self.adversary_entcoeff = 1e-3
        # GAIL's ExpertDataset (Optional[Any]: this folder does not import gail's)
        self.expert_dataset: Optional[Any] = None
        self.g_step = 1
        self.d_step = 1
        self.d_stepsize = 3e-4

        # filled in by setup_model
        for attribute in ("graph", "sess", "policy_pi", "loss_names", "assign_old_eq_new", "compute_losses",
                          "compute_lossandgrad", "compute_fvp", "compute_vflossandgrad", "d_adam", "vfadam",
                          "get_flat", "set_from_flat", "timed", "allmean", "nworkers", "rank", "reward_giver", "step",
                          "proba_step", "initial_state", "params", "summary", "_vf_get_flat"):
            setattr(self, attribute, None)

        self._check_spaces()
        if _init_setup_model:
            self.setup_model()

    # ------------------------------------------------------------------------------------------
    # checks and hooks
    # ------------------------------------------------------------------------------------------
    def _check_spaces(self) -> None:
        """Raise a clear error for spaces the algorithm does not handle (the manual's "Can I use?" table)."""
        name = type(self).__name__
        if self.action_space is not None and not isinstance(self.action_space, self._supported_action_spaces):
            raise ValueError("Error: {} does not support the action space {}; supported action spaces: {}"
                             .format(name, self.action_space, _space_names(self._supported_action_spaces)))
        if self.observation_space is not None \
                and not isinstance(self.observation_space, SUPPORTED_SPACES + (spaces.Dict, spaces.Tuple)):
            raise ValueError("Error: {} does not support the observation space {}; supported observation spaces: {}"
                             .format(name, self.observation_space, _space_names(SUPPORTED_SPACES)))

    def _check_policy_class(self) -> None:
        super()._check_policy_class()
        if issubclass(self.policy, RecurrentActorCriticPolicy):
            raise ValueError("Error: {} does not support recurrent policies (got {}); use a feed-forward policy "
                             "such as MlpPolicy or CnnPolicy".format(type(self).__name__, self.policy.__name__))

    def _build_reward_giver(self) -> Any:
        """
        Build the learned reward (the GAIL discriminator) in the current graph; TRPO has none.

        :return: (TransitionClassifier or None)
        """
        if self.using_gail:
            raise ValueError("This model was saved by GAIL (using_gail=True): load it with "
                             "stable_baselines.gail.GAIL.load")
        return None

    def _get_pretrain_placeholders(self) -> Tuple[Any, Any, Any]:
        return pretrain_placeholders(self.policy_pi, self.policy_pi.pdtype.sample_placeholder([None]),
                                     self.action_space)

    # ------------------------------------------------------------------------------------------
    # graph
    # ------------------------------------------------------------------------------------------
    def _build_objectives(self, behaviour: ActorCriticPolicy) -> Dict[str, Any]:
        """
        Placeholders, surrogate objective, KL and value loss (inside the "loss" scope).

        :param behaviour: (ActorCriticPolicy) the frozen copy of the policy that collected the batch
        :return: (dict) the tensors by name; "logged" holds the terms reported in ``loss_names`` order
        """
        learner = self.policy_pi
        adv_ph = tf.placeholder(dtype=tf.float32, shape=[None], name="atarg")  # normalised advantages
        return_ph = tf.placeholder(dtype=tf.float32, shape=[None], name="ret")  # lambda-returns
        action_ph = learner.pdtype.sample_placeholder([None])

        new_dist, old_dist = learner.proba_distribution, behaviour.proba_distribution
        kl_old_new, entropy = old_dist.kl(new_dist), new_dist.entropy()
        mean_kl, mean_entropy = tf.reduce_mean(kl_old_new), tf.reduce_mean(entropy)
        entropy_bonus = self.entcoeff * mean_entropy
        value_loss = tf.reduce_mean(tf.square(learner.value_flat - return_ph))

        # importance-weighted advantage: the surrogate whose gradient is the policy gradient at the old weights
        prob_ratio = tf.exp(new_dist.logp(action_ph) - old_dist.logp(action_ph))
        surrogate = tf.reduce_mean(prob_ratio * adv_ph)
        objective = surrogate + entropy_bonus
        return {"atarg": adv_ph, "ret": return_ph, "action": action_ph, "mean_kl": mean_kl,
                "mean_entropy": mean_entropy, "entropy_bonus": entropy_bonus, "value_loss": value_loss,
                "surrogate": surrogate, "objective": objective,
                "logged": [objective, mean_kl, entropy_bonus, surrogate, mean_entropy]}

    @staticmethod
    def _fisher_vector_product_graph(mean_kl: Any, var_list: List[Any]) -> Tuple[Any, Any]:
        """
        Hessian of the mean KL times a vector, by differentiating (grad KL . v) a second time.

        :param mean_kl: (tf.Tensor) the mean KL divergence between the old and the new policy
        :param var_list: ([tf.Variable]) the policy variables
        :return: (tf.Tensor, tf.Tensor) the placeholder of the flat vector v and the flat product
        """
        kl_gradients = tf.gradients(mean_kl, var_list)
        flat_vector = tf.placeholder(dtype=tf.float32, shape=[None], name="flat_tan")
        pieces, offset = [], 0
        for shape in (var.get_shape().as_list() for var in var_list):
            size = tf_util.intprod(shape)
            pieces.append(tf.reshape(flat_vector[offset: offset + size], shape))
            offset += size
        grad_dot_vector = tf.add_n([tf.reduce_sum(kl_grad * piece)
                                    for kl_grad, piece in zipsame(kl_gradients, pieces) if kl_grad is not None])
        return flat_vector, tf_util.flatgrad(grad_dot_vector, var_list)

    def _timed_section(self, label: str) -> ContextManager[None]:
        """Print how long the enclosed block took (rank 0, verbose >= 1 only): a context manager."""
        return timed(label, verbose=self.rank == 0 and self.verbose >= 1)

    def _mean_over_workers(self, values: np.ndarray) -> np.ndarray:
        """
        :param values: (np.ndarray) a local array
        :return: (np.ndarray) its element-wise mean over the MPI workers (a copy with a single worker)
        """
        values = np.asarray(values)
        if self.nworkers == 1:
            return values.copy()
        total = np.empty_like(values)
        MPI.COMM_WORLD.Allreduce(np.ascontiguousarray(values), total, op=MPI.SUM)
        total /= self.nworkers
        return total

    def setup_model(self) -> None:
        with SetVerbosity(self.verbose):
            self._check_policy_class()
            self._check_spaces()
            self.nworkers = MPI.COMM_WORLD.Get_size()
            self.rank = MPI.COMM_WORLD.Get_rank()

            self._new_graph_and_session()
            with self.graph.as_default():
                self.reward_giver = self._build_reward_giver()
                # "model" is the policy being optimised, "oldpi" the copy that collected the batch
                self.policy_pi, old_policy = current_and_old_policies(self, self._graph_inputs())

                with tf.variable_scope("loss", reuse=False):
                    terms = self._build_objectives(old_policy)
                    self.loss_names = ["optimgain", "meankl", "entloss", "surrgain", "entropy"]

                    # the policy step moves the policy head (not the value head), the value fit the other way round
                    model_vars = tf_util.get_trainable_vars("model")
                    policy_vars = [var for var in model_vars if "/vf" not in var.name and "/q/" not in var.name]
                    value_vars = [var for var in model_vars if "/pi" not in var.name and "/logstd" not in var.name]
                    self.get_flat = tf_util.GetFlat(policy_vars, sess=self.sess)
                    self.set_from_flat = tf_util.SetFromFlat(policy_vars, sess=self.sess)
                    self._vf_get_flat = tf_util.GetFlat(value_vars, sess=self.sess)

                    flat_tangent, fvp = self._fisher_vector_product_graph(terms["mean_kl"], policy_vars)

                    # tensorboard names kept from the original (which filed the surrogate as "value_function_loss")
                    tf.summary.scalar('entropy_loss', terms["mean_entropy"])
                    tf.summary.scalar('policy_gradient_loss', terms["objective"])
                    tf.summary.scalar('value_function_loss', terms["surrogate"])
                    tf.summary.scalar('approximate_kullback-leibler', terms["mean_kl"])
                    tf.summary.scalar('loss', terms["objective"] + terms["mean_kl"] + terms["entropy_bonus"] +
                                      terms["surrogate"] + terms["mean_entropy"])

                    copy_ops = [tf.assign(old_var, new_var) for old_var, new_var in
                                zipsame(tf_util.get_globals_vars("oldpi/model"), tf_util.get_globals_vars("model"))]
                    self.assign_old_eq_new = tf_util.function([], [], updates=copy_ops)
                    batch_feeds = [self.policy_pi.obs_ph, old_policy.obs_ph, terms["action"], terms["atarg"]]
                    if self.uses_action_masks:
                        # both networks restricted to the actions allowed at each step
                        batch_feeds += [self.policy_pi.action_mask_ph, old_policy.action_mask_ph]
                    self.compute_losses = tf_util.function(batch_feeds, terms["logged"])
                    self.compute_fvp = tf_util.function([flat_tangent] + batch_feeds, fvp)
                    self.compute_vflossandgrad = tf_util.function(
                        [self.policy_pi.obs_ph, old_policy.obs_ph, terms["ret"]],
                        tf_util.flatgrad(terms["value_loss"], value_vars))

                    # initialises every variable of the graph, the discriminator's included
                    self.sess.run(tf.global_variables_initializer())
                    # the workers start from the policy of rank 0
                    initial_weights = self.get_flat()
                    MPI.COMM_WORLD.Bcast(initial_weights, root=0)
                    self.set_from_flat(initial_weights)

                with tf.variable_scope("Adam_mpi", reuse=False):
                    self.vfadam = MpiAdam(value_vars, sess=self.sess)
                    if self.reward_giver is not None:
                        self.d_adam = MpiAdam(self.reward_giver.get_trainable_variables(), sess=self.sess)
                        self.d_adam.sync()
                    self.vfadam.sync()

                input_info_summaries([('discounted_rewards', terms["ret"]), ('learning_rate', self.vf_stepsize),
                                      ('advantage', terms["atarg"]), ('kl_clip_range', self.max_kl)],
                                     self.policy_pi.obs_ph, self._model_spaces()[0], self.full_tensorboard_log)

                self.timed = self._timed_section
                self.allmean = self._mean_over_workers

                self._act_with(self.policy_pi)
                self.initial_state = self.policy_pi.initial_state
                # predict runs in NumPy where possible; learn refreshes the weight copy after training
                self.fast_path.enable(self.policy_pi)

                # saved parameters: policy, old policy, then the discriminator (GAIL)
                self.params = tf_util.get_trainable_vars("model") + tf_util.get_trainable_vars("oldpi")
                if self.reward_giver is not None:
                    self.params.extend(self.reward_giver.get_trainable_variables())

                self.summary = tf.summary.merge_all()
                self.compute_lossandgrad = tf_util.function(
                    batch_feeds + [terms["ret"]],
                    [self.summary, tf_util.flatgrad(terms["objective"], policy_vars)] + terms["logged"])

    # ------------------------------------------------------------------------------------------
    # training
    # ------------------------------------------------------------------------------------------
    def _initialize_dataloader(self) -> None:
        """Initialize the expert dataloader used by GAIL (one discriminator minibatch per ``d_step``)."""
        assert self.expert_dataset is not None, "GAIL checks its expert dataset before learning"
        self.expert_dataset.init_dataloader(self.timesteps_per_batch // self.d_step)

    def _next_expert_batch(self) -> Tuple[np.ndarray, np.ndarray]:
        """:return: (np.ndarray, np.ndarray) the next expert minibatch of observations and actions (GAIL)"""
        assert self.expert_dataset is not None, "GAIL checks its expert dataset before learning"
        return self.expert_dataset.get_next_batch()

    def _train_discriminator(self, observation: np.ndarray, action: np.ndarray) -> None:
        """
        GAIL: one pass of the discriminator over the last policy batch, each minibatch against an expert one.

        :param observation: (np.ndarray) the observations of the last generator batch
        :param action: (np.ndarray) the actions of the last generator batch
        """
        logger.log("Optimizing Discriminator...")
        logger.log(fmt_row(13, self.reward_giver.loss_name))
        batch_size = max(self.timesteps_per_batch // self.d_step, 1)
        discrete = isinstance(self.action_space, spaces.Discrete)
        batch_losses = []
        batches = dataset.iterbatches((observation, action), include_final_partial_batch=False, batch_size=batch_size,
                                      shuffle=True)
        assert self.expert_dataset is not None, "GAIL checks its expert dataset before learning"
        for policy_obs, policy_actions in batches:
            expert_obs, expert_actions = self._next_expert_batch()
            if self.reward_giver.normalize:  # the discriminator normalises with statistics of both sources
                self.reward_giver.obs_rms.update(np.concatenate((policy_obs, expert_obs), 0))
            if discrete:  # the classifier takes discrete actions as a flat vector
                policy_actions, expert_actions = _flat_actions(policy_actions), _flat_actions(expert_actions)
            *losses, grad = self.reward_giver.lossandgrad(policy_obs, policy_actions, expert_obs, expert_actions,
                                                          sess=self.sess)
            self.d_adam.update(self.allmean(grad), self.d_stepsize)
            batch_losses.append(losses)
        if batch_losses:
            logger.log(fmt_row(13, list(np.mean(batch_losses, axis=0))))

    def _line_search(self, grad: np.ndarray, step_direction: np.ndarray,
                     fisher_vector_product: Callable[[np.ndarray], np.ndarray], loss_before: np.ndarray,
                     inputs: Sequence[np.ndarray], iteration: int) -> np.ndarray:
        """
        Scale the step direction to the KL radius, then halve it until the surrogate improves within the
        trust region (10 tries; the weights are restored when none is accepted).

        :return: (np.ndarray) the worker-averaged loss terms at the last tried step
        """
        curvature = .5 * step_direction.dot(fisher_vector_product(step_direction))
        # |s^T F s| guards against a slightly negative estimate
        scale = np.sqrt(abs(curvature) / self.max_kl)
        full_step = step_direction / scale
        expected_gain = grad.dot(full_step)
        start_weights = self.get_flat()
        new_weights = start_weights
        fraction = 1.0
        accepted = False
        for _ in range(10):
            new_weights = start_weights + full_step * fraction
            self.set_from_flat(new_weights)
            terms = self.allmean(np.array(self.compute_losses(*inputs, sess=self.sess)))
            gain = terms[0] - loss_before[0]
            logger.log("Expected: %.3f Actual: %.3f" % (expected_gain, gain))
            if not np.isfinite(terms).all():
                logger.log("Got non-finite value of losses -- bad!")
            elif terms[1] > self.max_kl * 1.5:
                logger.log("violated KL constraint. shrinking step.")
            elif gain < 0:
                logger.log("surrogate didn't improve. shrinking step.")
            else:
                logger.log("Stepsize OK!")
                accepted = True
                break
            fraction *= .5
        if not accepted:
            logger.log("couldn't compute a good step")
            self.set_from_flat(start_weights)
            new_weights = start_weights
        if self.nworkers > 1 and iteration % 20 == 0:
            # all ranks must still hold the same weights
            sums = MPI.COMM_WORLD.allgather((new_weights.sum(), self._vf_get_flat().sum()))
            if not all(np.allclose(other, sums[0]) for other in sums[1:]):
                raise RuntimeError("TRPO: the parameters of the MPI ranks diverged: {}".format(sums))
        return terms

    def _policy_and_value_update(self, seg: Dict[str, Any], g_index: int, writer: Any, iteration: int,
                                 logged_terms: Optional[np.ndarray]) -> np.ndarray:
        """
        One generator update on a fresh segment: natural-gradient policy step, then the value-function fit.

        :param seg: (dict) the segment of traj_segment_generator
        :param g_index: (int) index of this update among the ``g_step`` of the iteration
        :param writer: (tf.summary.FileWriter) tensorboard writer, or None
        :param iteration: (int) number of iterations done so far
        :param logged_terms: (np.ndarray) the loss terms logged by the previous update of this iteration, or None
        :return: (np.ndarray) the loss terms logged for this update
        """
        add_vtarg_and_adv(seg, self.gamma, self.lam)
        advantages = seg["adv"]
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        log_segment_rewards(self, seg, writer)  # tensorboard gets the undiscounted episode rewards

        inputs: Tuple[Any, ...] = (seg["observations"], seg["observations"], seg["actions"], advantages)
        if "action_masks" in seg:
            inputs += (seg["action_masks"], seg["action_masks"])
        # the Fisher products use every fifth sample only (cheaper, as in Schulman's thesis, pp. 40-42)
        fvp_inputs = [column[::5] for column in inputs]

        def fisher_vector_product(vector: np.ndarray) -> np.ndarray:
            return self.allmean(self.compute_fvp(vector, *fvp_inputs, sess=self.sess)) + self.cg_damping * vector

        self.assign_old_eq_new(sess=self.sess)
        with self.timed("computegrad"):
            summary_step = self.num_timesteps + (g_index + 1) * (seg["total_timestep"] / self.g_step)
            options = metadata = None
            if self.full_tensorboard_log:
                options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
                metadata = tf.RunMetadata()
            summary, grad, *loss_before = self.compute_lossandgrad(*inputs, seg["tdlamret"], sess=self.sess,
                                                                   options=options, run_metadata=metadata)
            if writer is not None:
                if self.full_tensorboard_log:
                    writer.add_run_metadata(metadata, 'step%d' % summary_step)
                writer.add_summary(summary, summary_step)

        loss_before = self.allmean(np.array(loss_before))
        grad = self.allmean(grad)
        if np.allclose(grad, 0):
            logger.log("Got zero gradient. not updating")
        else:
            with self.timed("conjugate_gradient"):
                step_direction = conjugate_gradient(fisher_vector_product, grad, cg_iters=self.cg_iters,
                                                    verbose=self.rank == 0 and self.verbose >= 1)
            if not np.isfinite(step_direction).all():
                raise RuntimeError("TRPO: the conjugate gradient produced a non-finite step direction")
            logged_terms = self._line_search(grad, step_direction, fisher_vector_product, loss_before, inputs,
                                             iteration)
        if logged_terms is None:
            logged_terms = loss_before
        for name, value in zip(self.loss_names, logged_terms):
            logger.record_tabular(name, value)

        with self.timed("vf"):
            for _ in range(self.vf_iters):
                for obs_batch, return_batch in dataset.iterbatches((seg["observations"], seg["tdlamret"]),
                                                                   include_final_partial_batch=False,
                                                                   batch_size=128, shuffle=True):
                    grad = self.allmean(self.compute_vflossandgrad(obs_batch, obs_batch, return_batch,
                                                                   sess=self.sess))
                    self.vfadam.update(grad, self.vf_stepsize)
        return logged_terms

    def learn(self, total_timesteps: int, callback: Any = None, log_interval: int = 100, tb_log_name: str = "TRPO",
              reset_num_timesteps: bool = True, progress_bar: bool = False) -> "TRPO":
        """
        Train the model.

        :param total_timesteps: (int) number of environment steps to train for, summed over the MPI workers
        :param callback: (Union[callable, [callable], BaseCallback]) called after every environment step with
            the local and global variables; returning False stops the training. A BaseCallback also hears of
            the start and the end of training.
        :param log_interval: (int) unused, kept for the common signature (TRPO logs after every iteration)
        :param tb_log_name: (str) name of the tensorboard run
        :param reset_num_timesteps: (bool) start the timestep count (used in logging) from zero
        :param progress_bar: (bool) display a progress bar over the timesteps (needs tqdm)
        :return: (BaseRLModel) the trained model
        """
        with self._learning(total_timesteps, callback, tb_log_name, reset_num_timesteps, progress_bar=progress_bar,
                            log_interval=log_interval) as (callback, writer):
            with self.sess.as_default():
                callback.on_training_start(learn_locals(self, total_timesteps, callback, log_interval, tb_log_name,
                                                        reset_num_timesteps, progress_bar, writer), globals())

                rollout_reward_giver = _RolloutRewardGiver(self.reward_giver, self.sess) if self.using_gail else None
                segments = traj_segment_generator(self.policy_pi, self.env, self.timesteps_per_batch,
                                                  reward_giver=rollout_reward_giver, gail=self.using_gail,
                                                  callback=callback)
                progress = SegmentProgress(MPI.COMM_WORLD, window=40, true_returns=self.using_gail)
                if self.using_gail:
                    self._initialize_dataloader()

                while progress.steps_done < total_timesteps:
                    logger.log("********** Iteration %i ************" % progress.iterations)
                    logger.log("Optimizing Policy...")
                    seg: Optional[Dict[str, Any]] = None
                    logged_terms: Optional[np.ndarray] = None
                    for g_index in range(self.g_step):  # a single generator update for TRPO
                        with self.timed("sampling"):
                            seg = next(segments)
                        if not seg.get('continue_training', True):  # the callback asked to stop
                            break
                        logged_terms = self._policy_and_value_update(seg, g_index, writer, progress.iterations,
                                                                     logged_terms)
                    assert seg is not None, "g_step >= 1 segments were collected"
                    if not seg.get('continue_training', True):
                        break

                    logger.record_tabular("explained_variance_tdlam_before",
                                          explained_variance(seg["vpred"], seg["tdlamret"]))
                    if self.using_gail:
                        self._train_discriminator(seg["observations"], seg["actions"])
                        assert rollout_reward_giver is not None, "made for GAIL above"
                        rollout_reward_giver.refresh()

                    progress.end_iteration(self, seg)
            callback.on_training_end()
        return self

    # ------------------------------------------------------------------------------------------
    # saving
    # ------------------------------------------------------------------------------------------
    def save(self, save_path: Any, cloudpickle: bool = False, include_training_state: bool = False) -> None:
        if self.using_gail and self.expert_dataset is not None:
            self.expert_dataset.prepare_pickling()  # stops the loader's worker processes so it can be pickled
        super().save(save_path, cloudpickle=cloudpickle, include_training_state=include_training_state)


def _flat_actions(actions: np.ndarray) -> np.ndarray:
    """Discrete actions of shape (n, 1) become shape (n,); other shapes are returned as they are."""
    return actions[:, 0] if len(actions.shape) == 2 else actions
