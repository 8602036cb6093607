"""
The engines under the TensorFlow helpers: running a session with the writes and random draws of every run
accounted for (``tf_run``, ``tf_random_draws``, ``tf_philox``), flat parameter vectors (``tf_flat``), several
training steps in one run (``repeated_step``, ``shape_folding``), NumPy copies of small networks
(``numpy_forward``) and target-network updates (``target_updates``). They import only
:mod:`stable_baselines.common.tf_compat`; the public helpers (``tf_util``, ``tf_layers``), the policies and the
model machinery stand on them.
"""
