"""The README's example runs as printed, prints a short log and ends by saying what the trained agent scored."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _example_code() -> str:
    with open(os.path.join(ROOT, "README.md")) as readme:
        text = readme.read()
    section = text[text.index("\n## Example"):]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match is not None, "the README's Example section has no python block"
    return match.group(1)


def test_readme_example_reports_its_score(tmp_path) -> None:
    script = tmp_path / "example.py"
    script.write_text(_example_code())
    answer = subprocess.run([sys.executable, str(script)], cwd=str(tmp_path), capture_output=True, text=True,
                            timeout=900, env=dict(os.environ, PYTHONPATH=ROOT))
    assert answer.returncode == 0, answer.stderr[-3000:]
    lines = answer.stdout.strip().splitlines()
    assert len(lines) < 150, "the example printed {} lines".format(len(lines))
    last = re.match(r"The trained agent scores (-?[0-9.]+) \+/- ([0-9.]+) over 10 episodes", lines[-1])
    assert last is not None, lines[-1]
    # a random agent scores about 22; 25 000 steps of PPO2 bring it far above
    assert float(last.group(1)) > 150.0
    assert (tmp_path / "ppo2_cartpole.zip").exists()
