"""PPO1: proximal policy optimization in its MPI form (one rollout per worker, Adam gradients averaged by MPI)."""
from typing import Any, Dict, List, Optional, Tuple, Type, Union

import numpy as np
from gymnasium import spaces
from mpi4py import MPI

from stable_baselines import logger
from stable_baselines.common import tf_util
from stable_baselines.common.base_class import ActorCriticRLModel, SetVerbosity
from stable_baselines.common.console_util import fmt_row
from stable_baselines.common.dataset import Dataset
from stable_baselines.common.math_util import explained_variance
from stable_baselines.common.misc_util import zipsame
from stable_baselines.common.model.arguments import check_positive_int, check_rollout_arguments
from stable_baselines.common.model.pretraining import pretrain_placeholders
from stable_baselines.common.model.on_policy import MODEL_SETTINGS_DOC, learn_locals
from stable_baselines.common.model.segments import SegmentProgress, current_and_old_policies, log_segment_rewards
from stable_baselines.common.mpi_adam import MpiAdam
from stable_baselines.common.mpi_moments import mpi_moments
from stable_baselines.common.policies import ActorCriticPolicy, RecurrentActorCriticPolicy
from stable_baselines.common.runners import add_vtarg_and_adv, traj_segment_generator
from stable_baselines.common.schedules import SCHEDULES
from stable_baselines.common.model.summaries import input_info_summaries
from stable_baselines.common.tf_compat import tf

_SUPPORTED_SPACES = (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)
# order of the values returned by ``lossandgrad`` / ``compute_losses`` (after the summary and the gradient)
_LOSS_NAMES = ["pol_surr", "pol_entpen", "vf_loss", "kl", "ent"]


class PPO1(ActorCriticRLModel):
    __doc__ = """
    Proximal Policy Optimization (Schulman et al. 2017, https://arxiv.org/abs/1707.06347), MPI flavour: every
    worker collects ``timesteps_per_actorbatch`` steps from its own environment, then runs ``optim_epochs``
    passes of minibatch Adam on the clipped surrogate; the gradients are averaged over the workers.

    :param policy: (ActorCriticPolicy or str) policy class, or the registered name of one (MlpPolicy, CnnPolicy, ...)
    :param env: (Gym environment or str) environment to train on, or a registered environment id
    :param gamma: (float) discount factor
    :param timesteps_per_actorbatch: (int) steps each worker collects between two updates
    :param clip_param: (float) the probability ratio is clipped to [1 - clip_param, 1 + clip_param]
        (the range shrinks with the step size when ``schedule`` is not constant)
    :param entcoeff: (float) weight of the entropy bonus in the loss
    :param optim_epochs: (int) passes over the collected batch per update
    :param optim_stepsize: (float) Adam step size at the start of training
    :param optim_batchsize: (int) minibatch size of the update (None: the whole batch at once)
    :param lam: (float) GAE lambda, trading the bias of the advantage estimate against its variance
    :param adam_epsilon: (float) epsilon of Adam's denominator
    :param schedule: (str) how the step size and clip range decay over training: 'linear', 'constant',
        'double_linear_con', 'middle_drop' or 'double_middle_drop'
""" + MODEL_SETTINGS_DOC

    algorithm_name = "PPO1"
    _supports_action_masks = True
    _saved_settings = ("gamma", "timesteps_per_actorbatch", "clip_param", "entcoeff", "optim_epochs",
                       "optim_stepsize", "optim_batchsize", "lam", "adam_epsilon", "schedule")

    def __init__(self, policy: Union[Type[ActorCriticPolicy], str], env: Any, gamma: float = 0.99,
                 timesteps_per_actorbatch: int = 256, clip_param: float = 0.2, entcoeff: float = 0.01,
                 optim_epochs: int = 4, optim_stepsize: float = 1e-3, optim_batchsize: Optional[int] = 64,
                 lam: float = 0.95, adam_epsilon: float = 1e-5, schedule: str = 'linear', verbose: int = 0,
                 tensorboard_log: Optional[str] = None, _init_setup_model: bool = True,
                 policy_kwargs: Optional[Dict[str, Any]] = None, full_tensorboard_log: bool = False,
                 seed: Optional[int] = None, n_cpu_tf_sess: Optional[int] = 1) -> None:
        check_rollout_arguments("timesteps_per_actorbatch", timesteps_per_actorbatch, gamma, optim_stepsize,
                                "optim_stepsize")

        super().__init__(policy=policy, env=env, verbose=verbose, requires_vec_env=False,
                         _init_setup_model=_init_setup_model, policy_kwargs=policy_kwargs,
                         seed=seed, n_cpu_tf_sess=n_cpu_tf_sess)

        # hyper-parameters (also the keys of the saved file, see ``save``)
        self.gamma = gamma
        self.timesteps_per_actorbatch = timesteps_per_actorbatch
        self.clip_param = clip_param
        self.entcoeff = entcoeff
        self.optim_epochs = optim_epochs
        self.optim_stepsize = optim_stepsize
        self.optim_batchsize = optim_batchsize
        self.lam = lam
        self.adam_epsilon = adam_epsilon
        self.schedule = schedule
        self.tensorboard_log = tensorboard_log
        self.full_tensorboard_log = full_tensorboard_log

        # filled in by setup_model
        for attribute in ("graph", "sess", "policy_pi", "loss_names", "lossandgrad", "adam", "assign_old_eq_new",
                          "compute_losses", "params", "step", "proba_step", "initial_state", "summary",
                          "action_ph"):
            setattr(self, attribute, None)

        if _init_setup_model:
            self.setup_model()

    def _get_pretrain_placeholders(self) -> Tuple[Any, Any, Any]:
        return pretrain_placeholders(self.policy_pi, self.action_ph, self.action_space)

    def _check_arguments(self) -> None:
        """Clear errors for hyper-parameters and spaces PPO1 cannot work with."""
        if self.schedule not in SCHEDULES:
            raise ValueError("Unknown schedule {!r} for PPO1, expected one of {}"
                             .format(self.schedule, sorted(SCHEDULES)))
        check_positive_int("timesteps_per_actorbatch", self.timesteps_per_actorbatch)
        check_positive_int("optim_epochs", self.optim_epochs)
        if self.optim_batchsize is not None:  # None: the whole batch
            check_positive_int("optim_batchsize", self.optim_batchsize)
        for what, space in (("action", self.action_space), ("observation", self.observation_space)):
            structured = what == "observation" and isinstance(space, (spaces.Dict, spaces.Tuple))
            if space is not None and not isinstance(space, _SUPPORTED_SPACES) and not structured:
                raise ValueError("PPO1 does not support the {} space {!r}; supported: Box, Discrete, "
                                 "MultiDiscrete, MultiBinary".format(what, space))
        if isinstance(self.policy, type) and issubclass(self.policy, RecurrentActorCriticPolicy):
            raise ValueError("PPO1 does not support recurrent policies (got {}); use a feed-forward policy such "
                             "as MlpPolicy or CnnPolicy, or PPO2 for recurrent ones".format(self.policy.__name__))

    # ------------------------------------------------------------------ graph construction

    def _build_objective(self, behaviour: ActorCriticPolicy) -> Tuple[Dict[str, Any], List[Any], Any]:
        """
        Create the placeholders and the terms of the PPO loss (inside the "loss" scope).

        :param behaviour: (ActorCriticPolicy) the frozen copy of the policy that collected the batch
        :return: (dict, list, tf.Tensor) the placeholders by name, the logged loss terms (in ``_LOSS_NAMES``
            order) and the total loss
        """
        learner = self.policy_pi
        # inputs: normalised advantages, lambda-returns and the decay factor of the schedule
        adv_ph = tf.placeholder(dtype=tf.float32, shape=[None])
        return_ph = tf.placeholder(dtype=tf.float32, shape=[None])
        lrmult = tf.placeholder(name='lrmult', dtype=tf.float32, shape=[])
        clip_range = self.clip_param * lrmult  # the clip range decays together with the step size
        self.action_ph = learner.pdtype.sample_placeholder([None])

        new_dist, old_dist = learner.proba_distribution, behaviour.proba_distribution
        kl_old_new, entropy = old_dist.kl(new_dist), new_dist.entropy()
        mean_kl, mean_entropy = tf.reduce_mean(kl_old_new), tf.reduce_mean(entropy)
        entropy_penalty = (-self.entcoeff) * mean_entropy

        # importance weight pi_new(a|s) / pi_old(a|s), computed from log-probabilities
        prob_ratio = tf.exp(new_dist.logp(self.action_ph) - old_dist.logp(self.action_ph))
        unclipped = prob_ratio * adv_ph
        clipped = tf.clip_by_value(prob_ratio, 1.0 - clip_range, 1.0 + clip_range) * adv_ph
        # the objective keeps the smaller (pessimistic) of the two; minimising its negation maximises it
        surrogate_loss = - tf.reduce_mean(tf.minimum(unclipped, clipped))
        value_loss = tf.reduce_mean(tf.square(learner.value_flat - return_ph))
        total_loss = surrogate_loss + entropy_penalty + value_loss

        for tag, tensor in (('entropy_loss', entropy_penalty), ('policy_gradient_loss', surrogate_loss),
                            ('value_function_loss', value_loss), ('approximate_kullback-leibler', mean_kl),
                            ('clip_factor', clip_range), ('loss', total_loss)):
            tf.summary.scalar(tag, tensor)

        inputs = {"atarg": adv_ph, "ret": return_ph, "lrmult": lrmult}
        return inputs, [surrogate_loss, entropy_penalty, value_loss, mean_kl, mean_entropy], total_loss

    def setup_model(self) -> None:
        with SetVerbosity(self.verbose):
            self._check_policy_class()
            self._check_arguments()
            self._new_graph_and_session()

            with self.graph.as_default():
                # the policy being trained lives in "model"; a second copy in "oldpi" holds the weights that
                # collected the current batch (the denominator of the probability ratio)
                self.policy_pi, old_pi = current_and_old_policies(self, self._graph_inputs())

                with tf.variable_scope("loss", reuse=False):
                    inputs, loss_terms, total_loss = self._build_objective(old_pi)
                    self.loss_names = list(_LOSS_NAMES)
                    self.params = tf_util.get_trainable_vars("model")
                    copy_ops = [tf.assign(old_var, new_var) for old_var, new_var in
                                zipsame(tf_util.get_globals_vars("oldpi"), tf_util.get_globals_vars("model"))]
                    self.assign_old_eq_new = tf_util.function([], [], updates=copy_ops)

                with tf.variable_scope("Adam_mpi", reuse=False):
                    self.adam = MpiAdam(self.params, epsilon=self.adam_epsilon, sess=self.sess)

                obs_ph = self.policy_pi.obs_ph
                input_info_summaries([('discounted_rewards', inputs["ret"]), ('learning_rate', self.optim_stepsize),
                                      ('advantage', inputs["atarg"]), ('clip_range', self.clip_param)],
                                     obs_ph, self._model_spaces()[0], self.full_tensorboard_log)

                self._act_with(self.policy_pi)
                self.initial_state = self.policy_pi.initial_state

                tf_util.initialize(sess=self.sess)
                # predict runs in NumPy where possible; learn refreshes the weight copy after training
                self.fast_path.enable(self.policy_pi)
                self.summary = tf.summary.merge_all()

                # both networks see the same observations; the feed order is the one of the minibatch tuple
                feeds = [obs_ph, old_pi.obs_ph, self.action_ph, inputs["atarg"], inputs["ret"], inputs["lrmult"]]
                if self.uses_action_masks:
                    # both networks restricted to the actions allowed at each step, fed last
                    feeds += [self.policy_pi.action_mask_ph, old_pi.action_mask_ph]
                gradient = tf_util.flatgrad(total_loss, self.params)
                self.lossandgrad = tf_util.function(feeds, [self.summary, gradient] + loss_terms)
                self.compute_losses = tf_util.function(feeds, loss_terms)

    # ------------------------------------------------------------------ training

    def _lr_multiplier(self, timesteps_so_far: int, total_timesteps: int) -> float:
        """
        :return: (float) the multiplier of the step size (and of the clipping range) given by ``schedule``
        """
        progress = min(float(timesteps_so_far) / max(total_timesteps, 1), 1.0)
        return max(float(SCHEDULES[self.schedule](progress)), 0.0)

    def _run_minibatch(self, batch: Dict[str, np.ndarray], lr_scale: float, writer: Any, epoch: int,
                       summary_step: int) -> List[float]:
        """
        One Adam step on a minibatch.

        :param batch: (dict) minibatch of the Dataset (keys ob, ac, atarg, vtarg)
        :param lr_scale: (float) current schedule multiplier
        :param writer: (tf.summary.FileWriter) tensorboard writer, or None
        :param epoch: (int) index of the current pass over the batch
        :param summary_step: (int) step under which the tensorboard summary is filed
        :return: ([float]) the loss terms of this minibatch (before the step)
        """
        feed = (batch["ob"], batch["ob"], batch["ac"], batch["atarg"], batch["vtarg"], lr_scale) + _mask_feeds(batch)
        if writer is None:
            _, grad, *terms = self.lossandgrad(*feed, sess=self.sess)
        else:
            if self.full_tensorboard_log and (epoch + 1) % 10 == 0:
                # every tenth epoch also records a full trace (timings, memory) of the run
                options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
                metadata = tf.RunMetadata()
                summary, grad, *terms = self.lossandgrad(*feed, sess=self.sess, options=options,
                                                         run_metadata=metadata)
                writer.add_run_metadata(metadata, 'step%d' % summary_step)
            else:
                summary, grad, *terms = self.lossandgrad(*feed, sess=self.sess)
            writer.add_summary(summary, summary_step)
        self.adam.update(grad, self.optim_stepsize * lr_scale)
        return terms

    def _update_on_segment(self, seg: Dict[str, Any], lr_scale: float, writer: Any) -> None:
        """
        Fit the policy and value function to one rollout segment and log the losses.

        :param seg: (dict) the segment of traj_segment_generator
        :param lr_scale: (float) current schedule multiplier
        :param writer: (tf.summary.FileWriter) tensorboard writer, or None
        """
        add_vtarg_and_adv(seg, self.gamma, self.lam)
        observations, returns = seg["observations"], seg["tdlamret"]
        log_segment_rewards(self, seg, writer)  # tensorboard gets the undiscounted episode rewards
        values_before = seg["vpred"]

        advantages = seg["adv"]
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        columns = dict(ob=observations, ac=seg["actions"], atarg=advantages, vtarg=returns)
        if "action_masks" in seg:
            columns["action_masks"] = seg["action_masks"]
        data = Dataset(columns, shuffle=not self.policy.recurrent)
        batch_size = self.optim_batchsize or observations.shape[0]
        n_samples = len(data.data_map)

        self.assign_old_eq_new(sess=self.sess)  # the ratio is taken against the weights that collected seg
        logger.log("Optimizing...")
        logger.log(fmt_row(13, self.loss_names))
        for epoch in range(self.optim_epochs):
            epoch_terms = []
            for index, batch in enumerate(data.iterate_once(batch_size)):
                # summary step as the original counted it (it can repeat across epochs)
                summary_step = self.num_timesteps + epoch * batch_size + int(index * (batch_size / n_samples))
                epoch_terms.append(self._run_minibatch(batch, lr_scale, writer, epoch, summary_step))
            if epoch_terms:
                logger.log(fmt_row(13, list(np.mean(epoch_terms, axis=0))))

        logger.log("Evaluating losses...")
        final_terms = [self.compute_losses(batch["ob"], batch["ob"], batch["ac"], batch["atarg"], batch["vtarg"],
                                           lr_scale, *_mask_feeds(batch), sess=self.sess)
                       for batch in data.iterate_once(batch_size)]
        if final_terms:
            averaged, _, _ = mpi_moments(final_terms, axis=0)
            logger.log(fmt_row(13, list(averaged)))
            for value, name in zipsame(list(averaged), self.loss_names):
                logger.record_tabular("loss_" + name, value)
        logger.record_tabular("ev_tdlam_before", explained_variance(values_before, returns))

    def learn(self, total_timesteps: int, callback: Any = None, log_interval: int = 100, tb_log_name: str = "PPO1",
              reset_num_timesteps: bool = True, progress_bar: bool = False) -> "PPO1":
        """
        Train the model.

        :param total_timesteps: (int) number of environment steps to train for, summed over the MPI workers
        :param callback: (Union[callable, [callable], BaseCallback]) called after every environment step with
            the local and global variables; returning False stops the training
        :param log_interval: (int) unused, kept for the common signature (PPO1 logs after every update)
        :param tb_log_name: (str) name of the tensorboard run
        :param reset_num_timesteps: (bool) start the timestep count (used in logging) from zero
        :param progress_bar: (bool) draw a tqdm progress bar over the timesteps (an addition to the original)
        :return: (BaseRLModel) the trained model
        """
        with self._learning(total_timesteps, callback, tb_log_name, reset_num_timesteps, progress_bar=progress_bar,
                            log_interval=log_interval) as (callback, writer):
            if not issubclass(self.policy, ActorCriticPolicy):
                raise ValueError("Error: the input policy for the PPO1 model must be an instance of "
                                 "common.policies.ActorCriticPolicy, got {!r}".format(self.policy))

            with self.sess.as_default():
                self.adam.sync()  # all workers start from the weights of rank 0
                callback.on_training_start(learn_locals(self, total_timesteps, callback, log_interval, tb_log_name,
                                                        reset_num_timesteps, progress_bar, writer), globals())

                segments = traj_segment_generator(self.policy_pi, self.env, self.timesteps_per_actorbatch,
                                                  callback=callback)
                progress = SegmentProgress(MPI.COMM_WORLD, window=100)
                while progress.steps_done < total_timesteps:
                    lr_scale = self._lr_multiplier(progress.steps_done, total_timesteps)
                    logger.log("********** Iteration %i ************" % progress.iterations)
                    seg = next(segments)
                    if not seg.get('continue_training', True):  # the callback asked to stop
                        break
                    self._update_on_segment(seg, lr_scale, writer)
                    progress.end_iteration(self, seg)
            callback.on_training_end()
        return self


def _mask_feeds(batch: Dict[str, np.ndarray]) -> tuple:
    """:return: (tuple) the allowed actions of a minibatch for the new and the old policy (empty without masks)"""
    if "action_masks" not in batch:
        return ()
    return batch["action_masks"], batch["action_masks"]
