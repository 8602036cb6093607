"""
The other side of tests/test_resume_new_process.py, run in a fresh Python process: load a model file saved with its
training state, train it on an env prepared the way the saving process prepared its own, and write the parameters.

    python -m tests.resume_child CASE MODEL_FILE OUT_NPZ
    python -m tests.resume_child --serve    (one request "CASE MODEL_FILE OUT_NPZ" per line of stdin)

Serving, the process answers each request with one line on stdout: ``ok``, or ``error`` and the traceback (its
newlines escaped). None of its state comes from the saving process: it only shares this process with the other
requests, whose models have their own graphs and sessions.
"""
import json
import sys
import traceback

import numpy as np

from tests.test_exact_resume import CASES, _load_kwargs, _model_class, make_env, reseed
from tests.test_resume_new_process import CONTINUE_STEPS, prepared_env, seeds_before


def main(case: str, model_file: str, out: str) -> None:
    env = make_env(CASES[case][0])
    if seeds_before(case):
        model = _model_class(case).load(model_file, env=prepared_env(env), **_load_kwargs(case))
    else:
        model = _model_class(case).load(model_file, env=env, **_load_kwargs(case))
        reseed(model)
    model.learn(CONTINUE_STEPS, reset_num_timesteps=False)
    parameters = model.get_parameters()
    np.savez(out, names=np.array(list(parameters)), num_timesteps=model.num_timesteps,
             **{"p{}".format(index): value for index, value in enumerate(parameters.values())})


def serve() -> None:
    answers = sys.stdout
    sys.stdout = sys.stderr  # what the models print must not mix with the answers
    print("ready", file=answers, flush=True)
    for line in sys.stdin:
        try:
            main(*json.loads(line))
            answer = "ok"
        except Exception:  # reported to the test, which fails with it
            answer = "error " + json.dumps(traceback.format_exc())
        print(answer, file=answers, flush=True)


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        main(*sys.argv[1:4])
