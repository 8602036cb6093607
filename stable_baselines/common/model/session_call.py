"""
:class:`SessionCall`: one fixed ``Session.run`` made cheap to repeat (a training step fetching its losses), with
its results named.
"""
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from stable_baselines.common.model.fast_path import FastPath
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_util import feed_callable


class SessionCall:
    """
    A session call with a fixed feed list, fixed fetches and update ops run with them (their values dropped);
    built on ``tf_util.feed_callable``, so no per-call processing of the fetch and feed structures, and what a call
    draws and writes is reported as for every session call of the library (``tf_run.session_run``).

    :param sess: (tf.Session) the session
    :param feeds: ([tf.Tensor]) the fed tensors, in the order of the call's arguments
    :param fetches: (dict or list) the tensors to return: by name (the call returns a dict with the same keys) or
        as a list (the call returns a list in the same order)
    :param updates: ([tf.Operation or tf.Tensor]) what runs too, without being returned (a tensor is run through
        its operation: its value is never copied out of the session)
    :param refresh: ((str, BasePolicy)) a name and a policy whose NumPy copy the updates change: when the policy
        has a copy, each call also fetches its weights after the updates (returned under the name, or last) and
        hands them to the copy. The tensor is built here (``FastPath.weights_after``), so make the call where the
        graph should have it.
    """

    def __init__(self, sess: tf.Session, feeds: Sequence[tf.Tensor],
                 fetches: Union[Mapping[str, Any], Sequence[Any]], updates: Sequence[Any] = (),
                 refresh: Optional[Tuple[str, Any]] = None) -> None:
        self.names: Optional[List[str]] = None
        if isinstance(fetches, Mapping):
            self.names = list(fetches)
            returned = [fetches[name] for name in self.names]
        else:
            returned = list(fetches)
        # the policy whose copy takes the last fetch after each call (None: no refresh)
        self._refreshed: Any = None
        if refresh is not None:
            name, policy = refresh
            weights = FastPath.weights_after(policy, updates)
            if weights is not None:
                self._refreshed = policy
                returned.append(weights)
                if self.names is not None:
                    self.names.append(name)
        self.n_returned = len(returned)
        targets = [update.op if isinstance(update, tf.Tensor) else update for update in updates]
        self._run = feed_callable(sess, returned + targets, feeds)

    def __call__(self, *values: Any) -> Union[Dict[str, Any], List[Any]]:
        """
        :param values: (Any) the values of the feeds, in their order
        :return: (dict or list) the fetched values (named when the fetches were)
        """
        results = self._run(*values)
        if self._refreshed is not None:
            FastPath.receive_weights(self._refreshed, results[self.n_returned - 1])
        if self.names is None:
            return list(results[:self.n_returned])
        return dict(zip(self.names, results))
