"""infx.signoff.rules.patching: what counts as patching the serving stack."""

from __future__ import annotations

import pytest
from lib.patching_scripts import COMPONENTS, RULES, scan, scan_with_components

from infx.signoff.model import ChangedFile
from infx.signoff.rules.patching import find_patching


@pytest.mark.parametrize("line", [
    "git apply fix.diff",
    "patch -p1 < fix.diff",
    "sed -i 's/a/b/' /usr/local/lib/python3.12/dist-packages/vllm/config.py",
    "cp fixed.py /usr/lib/python3/site-packages/sglang/srt/server.py",
    "pip install git+https://github.com/fork/vllm@branch",
    "pip install /wheels/vllm-0.9-cp312.whl",
    "pip install sglang==0.5.99",
    "echo 'import x' > $(python3 -c 'import site; print(site.getsitepackages()[0])')/sitecustomize.py",
    "export PYTHONSTARTUP=/tmp/hook.py",
    "python setup.py install",
    # every install of a list is read, not only the first
    "pip install datasets && pip install vllm==0.9.1",
    "uv pip install pandas; pip3 install --no-deps sglang",
])
def test_patching_leads(line):
    assert scan("benchmarks/run.sh", line), line


@pytest.mark.parametrize("line", [
    "pip install --target /tmp/tok sentencepiece tiktoken",
    "pip install aiperf==0.3 lm_eval[api]",
    # the install ends where the shell list goes on: `--backend vllm` is the client's option
    'bash -lc "pip install -q datasets pandas && python3 bench.py --backend vllm --model m"',
    "pip install datasets; vllm serve m",
    "sed -i 's/x/y/' results.json",
    "cp results.json /tmp/out/",
])
def test_allowed_lines(line):
    assert scan("benchmarks/run.sh", line) == [], line


def test_heredoc_into_site_packages():
    found = scan("benchmarks/run.sh", "python3 - <<EOF",
                 "open('/opt/venv/lib/python3.12/site-packages/vllm/x.py', 'w').write('')", "EOF",
                 "echo done")
    assert len(found) == 1 and found[0].where == "benchmarks/run.sh:1"
    assert found[0].body == ("open('/opt/venv/lib/python3.12/site-packages/vllm/x.py', 'w').write('')",)


def test_harmless_heredoc_config_file():
    assert scan("benchmarks/run.sh", "cat > extra.yaml <<EOF", "max_draft_len: 3", "EOF") == []


def test_patch_files_and_docs():
    assert scan("benchmarks/fix.patch", "--- a/x", "+++ b/x")[0].what == "adds a patch file"
    assert scan("docs/how-to.md", "git apply fix.diff") == []


def test_dockerfile_deriving_an_image_is_patching():
    found = scan("docker/Dockerfile.mi355x", "FROM lmsysorg/sglang-rocm:v0.5.17", "RUN echo hi")
    assert [p.where for p in found] == ["docker/Dockerfile.mi355x:1"]
    assert "builds a derived image" in found[0].what
    # a FROM word elsewhere is not a Dockerfile
    assert not scan("benchmarks/run.sh", "echo FROM here")


@pytest.mark.parametrize(("name", "example"), [(c["name"], e) for c in COMPONENTS for e in c["examples"]["non-engine"]])
def test_non_engine_component_examples_are_not_patching(name, example):
    """Building LMCache, a KV-offload connector, or installing srtctl from source (and patching
    its checkout) is not an engine rebuild (configs/policy/patching.yaml non-engine-components)."""
    assert scan_with_components(example) == [], name


@pytest.mark.parametrize(("name", "example"), [(c["name"], e) for c in COMPONENTS
                                               for e in c["examples"].get("engine", [])])
def test_engine_counter_examples_stay_patching(name, example):
    assert scan_with_components(example), name


def test_without_the_component_rule_the_examples_are_leads():
    example = COMPONENTS[0]["examples"]["non-engine"][0]
    lines = example.splitlines()
    patch = f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{ln}\n" for ln in lines)
    leads = find_patching([ChangedFile("benchmarks/single_node/x.sh", "added", patch=patch)],
                          RULES["engine-paths"], RULES["engine-packages"], RULES["allowed-packages"])
    assert leads and "rebuilds the engine" in leads[0].what


HEREDOC_FILES = RULES["heredoc-files"]


def scan_heredocs(text: str, rule: dict | None = HEREDOC_FILES):
    lines = text.splitlines()
    patch = f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{ln}\n" for ln in lines)
    return find_patching([ChangedFile("benchmarks/multi_node/amd_utils/job.slurm", "added", patch=patch)],
                         RULES["engine-paths"], RULES["engine-packages"], RULES["allowed-packages"],
                         COMPONENTS, rule)


@pytest.mark.parametrize("example", HEREDOC_FILES["examples"]["non-engine"])
def test_heredoc_into_a_file_that_is_no_engine_path_is_not_patching(example):
    """Real PR #2127 writes a settings file with `cat > "$HICACHE_MC_CONFIG" <<EOF` in a file
    that also names an engine path (configs/policy/patching.yaml heredoc-files)."""
    assert scan_heredocs(example) == []


@pytest.mark.parametrize("example", HEREDOC_FILES["examples"]["engine"])
def test_heredoc_into_an_engine_path_stays_patching(example):
    found = scan_heredocs(example)
    assert found and "heredoc rewrites engine files" in found[0].what


def test_without_the_heredoc_rule_a_config_file_heredoc_in_an_engine_locating_file_is_a_lead():
    example = HEREDOC_FILES["examples"]["non-engine"][0]
    assert [p.where for p in scan_heredocs(example, None)] == ["benchmarks/multi_node/amd_utils/job.slurm:4"]


@pytest.mark.parametrize(("line", "target"), [
    ('cat > "$F" <<EOF', "$F"), ("cat <<'EOF' >> /tmp/x.env", "/tmp/x.env"), ("cat >out.txt <<-EOF", "out.txt"),
    ("sudo tee -a /etc/x.conf > /dev/null <<EOF", "/etc/x.conf"), ("python3 - <<EOF > log.txt", None),
    ("cat <<EOF | python3", None), ("bash <<EOF", None)])
def test_heredoc_target(line, target):
    from infx.signoff.rules.patching import heredoc_target
    assert heredoc_target(line, HEREDOC_FILES["writers"]) == target


def test_a_component_folder_named_by_a_variable_the_file_sets_once():
    """`cd "$DIR"` where the file sets DIR to one literal value enters that folder (a real
    launcher, InferenceX #1157: srt-slurm cloned into "$SRT_REPO_DIR", srtctl installed there)."""
    text = ('SRT_SLURM_RECIPES_REPO="https://github.com/example/srt-slurm.git"\n'
            'SRT_REPO_DIR="srt-slurm"\n'
            'git clone "$SRT_SLURM_RECIPES_REPO" "$SRT_REPO_DIR"\n'
            'cd "${SRT_REPO_DIR}"\n'
            'uv venv\n'
            'uv pip install -e .\n')
    assert scan_with_components(text) == []


@pytest.mark.parametrize("text", [
    # set twice: which folder is entered is not known here
    'D="srt-slurm"\nD="/sgl-workspace/sglang"\ncd "$D"\npip install -e .\n',
    # never set in the file: the job's environment names it
    'cd "$ENGINE_DIR"\npip install -e .\n',
    # set from a command's output
    'D="$(python3 -c \'import sglang, os; print(os.path.dirname(sglang.__file__))\')"\ncd "$D"\npip install -e .\n',
    # the component's folder left for the engine's
    'D="srt-slurm"\ncd "$D"\ncd /sgl-workspace/sglang\npip install -e .\n',
])
def test_a_variable_folder_not_known_to_be_the_component_stays_a_lead(text):
    assert scan_with_components(text), text
