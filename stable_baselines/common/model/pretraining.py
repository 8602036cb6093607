"""
Behaviour cloning (``model.pretrain``): supervised training of a model's policy on the pairs of an
``ExpertDataset``; a mean squared error on the actions for Box action spaces, a cross-entropy on the logits
(or Q-values) for Discrete ones. Structured (Dict, Tuple) expert observations are packed into the rows a
``MultiInputPolicy`` reads.
"""
from typing import Any, Dict, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines.common import tf_util
from stable_baselines.common.policies import ActorCriticPolicy, RecurrentActorCriticPolicy
from stable_baselines.common.structured_obs import check_batch_entries, is_structured_space, pack_batch
from stable_baselines.common.tf_compat import tf


def pretrain_placeholders(net: ActorCriticPolicy, action_ph: Any, action_space: Any) -> Tuple[Any, Any, Any]:
    """
    What ``pretrain`` feeds and fits in an actor-critic network: discrete actions through the action
    probabilities, the others through the mean action.

    :param net: (ActorCriticPolicy) the network pretrained
    :param action_ph: (TensorFlow Tensor) the input of the expert's actions
    :param action_space: (Gym Space) the action space of the model
    :return: (TensorFlow Tensor, TensorFlow Tensor, TensorFlow Tensor) observations, actions, network output
    """
    target = net.policy if isinstance(action_space, spaces.Discrete) else net.deterministic_action
    return net.obs_ph, action_ph, target


def check_pretrain_inputs(model: Any, dataset: Any) -> None:
    """
    Raise a clear error when ``model`` cannot be pretrained on ``dataset``.

    :param model: (BaseRLModel) the model
    :param dataset: (ExpertDataset) the expert data
    """
    if not isinstance(model.action_space, (spaces.Box, spaces.Discrete)):
        raise ValueError("pretrain: only Discrete and Box action spaces are supported, got {}"
                         .format(model.action_space))
    if isinstance(model.policy, type) and issubclass(model.policy, RecurrentActorCriticPolicy):
        raise ValueError("pretrain: recurrent policies ({}) are not supported, use a feed-forward policy"
                         .format(model.policy.__name__))
    if model.sess is None or model.graph is None:
        raise ValueError("pretrain: the model has no graph yet; create it with _init_setup_model=True "
                         "or call setup_model() first")
    if not all(hasattr(dataset, name) for name in ("train_loader", "val_loader", "get_next_batch")):
        raise TypeError("pretrain: dataset must be an ExpertDataset (from stable_baselines.gail), got {}"
                        .format(type(dataset).__name__))
    if dataset.train_loader is None or dataset.val_loader is None:
        raise ValueError("pretrain: the dataloaders of the dataset were released")
    # a dataset of another kind (duck-typed: the loaders and get_next_batch) need not expose its observations
    observations = getattr(dataset, "observations", None)
    if observations is None:
        return
    if is_structured_space(model.observation_space):
        check_batch_entries(observations, model.observation_space, "pretrain: the expert dataset's observations")
    elif isinstance(observations, (dict, tuple)):
        raise ValueError("pretrain: the expert dataset's observations are structured (a {} of arrays), the model's "
                         "observation space {} is not".format(type(observations).__name__, model.observation_space))


def build_cloning_graph(model: Any, adam_epsilon: float) -> Dict[str, Any]:
    """
    Add the loss and its Adam optimizer to the model's graph (scope ``pretrain``; the optimizer only updates
    the parameters that influence the policy's output).

    :param model: (BaseRLModel) the model
    :param adam_epsilon: (float) the epsilon of Adam
    :return: (dict) the tensors and ops of the cloning step
    """
    with model.graph.as_default():
        obs_ph, actions_ph, policy_out = model.get_pretrain_placeholders()
        with tf.variable_scope("pretrain", reuse=tf.AUTO_REUSE):
            learning_rate_ph = tf.placeholder(tf.float32, [], name="pretrain_learning_rate")
            if isinstance(model.action_space, spaces.Box):
                loss = tf.reduce_mean(tf.square(tf.cast(actions_ph, tf.float32) - policy_out))
            else:
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                    labels=tf.cast(actions_ph, tf.int32), logits=policy_out))
            candidates = model.params if model.params is not None else tf.trainable_variables()
            grads = tf.gradients(loss, candidates)
            trained = [var for var, grad in zip(candidates, grads) if grad is not None]
            if not trained:
                raise ValueError("pretrain: no model parameter influences the policy output")
            optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate_ph, epsilon=adam_epsilon,
                                               name="PretrainAdam")
            optim_op = optimizer.minimize(loss, var_list=trained)
            init_op = tf.variables_initializer(optimizer.variables())
    return {"key": (model.graph, float(adam_epsilon)), "obs_ph": obs_ph, "actions_ph": actions_ph, "loss": loss,
            "optim_op": optim_op, "init_op": init_op, "learning_rate_ph": learning_rate_ph}


class _ExpertFeed:
    """
    Turns a minibatch of the dataset into a feed dict of the cloning graph, reshaping observations and actions
    to the placeholders' shapes and naming the mismatch when they do not fit.
    """

    def __init__(self, model: Any, graph: Dict[str, Any]):
        self.model = model
        self.obs_ph, self.actions_ph = graph["obs_ph"], graph["actions_ph"]
        self.obs_shape = tuple(-1 if dim is None else dim for dim in self.obs_ph.shape.as_list()[1:])
        self.action_shape = tuple(self.actions_ph.shape.as_list()[1:])

    def __call__(self, expert_obs: Any, expert_actions: Any) -> dict:
        if is_structured_space(self.model.observation_space):
            expert_obs = pack_batch(expert_obs, self.model.observation_space)
        expert_obs, expert_actions = np.asarray(expert_obs), np.asarray(expert_actions)
        n_rows = len(expert_obs)
        try:
            expert_obs = expert_obs.reshape((n_rows,) + self.obs_shape)
        except ValueError as error:
            raise ValueError("pretrain: expert observations of shape {} do not fit the observation space {}"
                             .format(expert_obs.shape[1:], self.model.observation_space)) from error
        if len(expert_actions) != n_rows:
            raise ValueError("pretrain: the dataset gave {} observations and {} actions in a minibatch"
                             .format(n_rows, len(expert_actions)))
        try:
            expert_actions = expert_actions.reshape((n_rows,) + self.action_shape)
        except ValueError as error:
            raise ValueError("pretrain: expert actions of shape {} do not fit the action space {}"
                             .format(expert_actions.shape[1:], self.model.action_space)) from error
        return {self.obs_ph: expert_obs, self.actions_ph: expert_actions}


def _mean_loss(model: Any, graph: Dict[str, Any], dataset: Any, split: str, feed: _ExpertFeed,
               learning_rate: float = 0.0, train: bool = False) -> float:
    """One pass over a split of the dataset: the mean loss (and, with ``train``, one optimizer step per batch)."""
    loader = dataset.train_loader if split == "train" else dataset.val_loader
    total = 0.0
    for _ in range(len(loader)):
        feed_dict = feed(*dataset.get_next_batch(split))
        if train:
            feed_dict[graph["learning_rate_ph"]] = learning_rate
            batch_loss, _ = tf_util.session_run(model.sess, [graph["loss"], graph["optim_op"]], feed_dict)
        else:
            batch_loss, = model.sess.run([graph["loss"]], feed_dict)
        total += batch_loss
    return total / max(len(loader), 1)


def behaviour_cloning(model: Any, graph: Dict[str, Any], dataset: Any, n_epochs: int, learning_rate: float,
                      val_interval: int) -> None:
    """
    Train the model's policy on the dataset for ``n_epochs`` passes over its training split, printing the
    training and validation losses every ``val_interval`` epochs when the model is verbose.

    :param model: (BaseRLModel) the model
    :param graph: (dict) see :func:`build_cloning_graph`
    :param dataset: (ExpertDataset) the expert data
    :param n_epochs: (int) passes over the training split
    :param learning_rate: (float) Adam's learning rate
    :param val_interval: (int) epochs between two reports
    """
    feed = _ExpertFeed(model, graph)
    model.sess.run(graph["init_op"])  # a fresh Adam state for each call
    if model.verbose > 0:
        print("Pretraining with Behavior Cloning...")
    for epoch in range(1, n_epochs + 1):
        train_loss = _mean_loss(model, graph, dataset, "train", feed, learning_rate, train=True)
        if model.verbose > 0 and epoch % val_interval == 0:
            val_loss = _mean_loss(model, graph, dataset, "val", feed)
            print("==== Training progress {:.2f}% ====".format(100 * epoch / n_epochs))
            print('Epoch {}'.format(epoch))
            print("Training loss: {:.6f}, Validation loss: {:.6f}".format(train_loss, val_loss))
            print()
    if model.verbose > 0:
        print("Pretraining done.")
