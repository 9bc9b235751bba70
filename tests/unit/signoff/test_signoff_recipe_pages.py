"""infx.signoff.rules.recipe_pages: published recipe pages map to upstream files, nothing else does."""

from __future__ import annotations

import pytest

from infx.config.policy import load_policy_document, reader_for_directory
from infx.errors import InfxError
from infx.signoff.rules import recipe_pages
from infx.signoff.rules.recipe_pages import PageSource, resolve


@pytest.fixture
def known(repo_root):
    return recipe_pages.sites(reader_for_directory(repo_root).doc("recipe-pages"))


# every page link of these shapes found in the real threads, changelog and checklist under
# ../shared (seed PR threads 003/004, perf-changelog.yaml, PR_REVIEW_CHECKLIST.md)
REAL = [
    ("https://recipes.vllm.ai/moonshotai/Kimi-K3?hardware=gb200&nodes=4&strategy=multi_node_dep",
     "vllm", "vllm-project/recipes", "models/moonshotai/Kimi-K3.yaml"),
    ("https://recipes.vllm.ai/MiniMaxAI/MiniMax-M3;", "vllm", "vllm-project/recipes",
     "models/MiniMaxAI/MiniMax-M3.yaml"),
    ("https://docs.vllm.ai/projects/recipes/en/latest/moonshotai/Kimi-K2.5.html", "vllm",
     "vllm-project/recipes", "moonshotai/Kimi-K2.5.md"),
    ("https://docs.vllm.ai/projects/recipes/en/latest/MiniMax/MiniMax-M2.html", "vllm",
     "vllm-project/recipes", "MiniMax/MiniMax-M2.md"),
    ("https://docs.sglang.io/cookbook/autoregressive/DeepSeek/DeepSeek-V4", "sglang",
     "sgl-project/sglang", "docs/cookbook/autoregressive/DeepSeek/DeepSeek-V4.mdx"),
    ("https://cookbook.sglang.io/autoregressive/DeepSeek/DeepSeek-R1", "sglang",
     "sgl-project/sglang", "docs/cookbook/autoregressive/DeepSeek/DeepSeek-R1.mdx"),
    ("https://cookbook.sglang.io/autoregressive/GLM/GLM-5.1.", "sglang",
     "sgl-project/sglang", "docs/cookbook/autoregressive/GLM/GLM-5.1.mdx"),
    ("https://docs.sglang.ai/cookbook/autoregressive/Qwen/Qwen3.5/#launch", "sglang",
     "sgl-project/sglang", "docs/cookbook/autoregressive/Qwen/Qwen3.5.mdx"),
    ("https://docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5**", "sglang",  # **bold** link
     "sgl-project/sglang", "docs/cookbook/autoregressive/Qwen/Qwen3.5.mdx"),
    ("https://recipes.vllm.ai/MiniMaxAI/MiniMax-M3`", "vllm", "vllm-project/recipes",  # `code`
     "models/MiniMaxAI/MiniMax-M3.yaml"),
]


@pytest.mark.parametrize(("url", "engine", "repo", "path"), REAL)
def test_real_page_links_map_to_their_source_file(known, url, engine, repo, path) -> None:
    source = resolve(url, known)
    assert isinstance(source, PageSource)
    assert (source.engine, source.repo, source.ref, source.path) == (engine, repo, "main", path)
    assert source.key == f"{repo}/{path} at main"


@pytest.mark.parametrize("url", [
    "https://recipes.vllm.ai/",  # the index, not a recipe
    "https://docs.sglang.io/cookbook/intro",
    "https://docs.vllm.ai/projects/recipes/en/stable/moonshotai/Kimi-K2.5.html",  # not pinned
    "https://docs.vllm.ai/en/latest/serving/distributed_serving.html",
    "https://recipes.vllm.ai/moonshotai/../Kimi-K3",
    "https://recipes.vllm.ai/../../etc/passwd",
    "https://recipes.vllm.ai/%2e%2e/Kimi-K3",
    "https://recipes.vllm.ai/.github/workflows",
    "https://recipes.vllm.ai/moonshotai/Kimi-K3/extra",
    "https://recipes.vllm.ai/moonshotai//Kimi-K3",
])
def test_paths_outside_the_page_patterns_map_to_nothing(known, url) -> None:
    reason = resolve(url, known)
    assert isinstance(reason, str) and "configs/policy/recipe-pages.yaml" in reason


@pytest.mark.parametrize("url", [
    "https://rocm.blogs.amd.com/artificial-intelligence/minimax-m3/README.html",
    "https://rocm.docs.amd.com/en/latest/how-to/rocm-for-ai/inference/vllm.html",
    "https://recipes.vllm.ai.evil.example/moonshotai/Kimi-K3",
    "https://evil.example/recipes.vllm.ai/moonshotai/Kimi-K3",
    "https://recipes.vllm.ai@evil.example/moonshotai/Kimi-K3",
    "https://user:pw@recipes.vllm.ai/moonshotai/Kimi-K3",
    "https://recipes.vllm.ai:8443/moonshotai/Kimi-K3",
    "ftp://recipes.vllm.ai/moonshotai/Kimi-K3",
    "https://[::1/moonshotai/Kimi-K3",
])
def test_other_hosts_credentials_and_ports_are_not_mapped(known, url) -> None:
    assert recipe_pages.site_for(url, known) is None
    assert "is not on a recipe site configs/policy/recipe-pages.yaml maps" in resolve(url, known)


def test_hosts_are_matched_without_case(known) -> None:
    source = resolve("HTTPS://Recipes.VLLM.ai/moonshotai/Kimi-K3", known)
    assert isinstance(source, PageSource) and source.path == "models/moonshotai/Kimi-K3.yaml"


def test_hosts_by_engine(known) -> None:
    assert recipe_pages.hosts(known, "vllm") == ["recipes.vllm.ai", "docs.vllm.ai"]
    assert "docs.sglang.io" in recipe_pages.hosts(known, "sglang")


def _doc(page: str, source: str) -> str:
    return ("sites:\n  - hosts: [docs.example.org]\n    engine: vllm\n    repo: o/r\n    ref: main\n"
            f"    pages:\n      - page: {page}\n        source: {source}\n")


@pytest.mark.parametrize("source", ["../{a}.md", "/etc/{a}", "docs/../{a}.md", "docs/.{a}", "docs/{a}?x"])
def test_policy_schema_refuses_sources_that_could_leave_the_repository(source) -> None:
    with pytest.raises(InfxError) as info:
        load_policy_document("recipe-pages", _doc("/{a}", f'"{source}"'))
    assert info.value.problems[0].file == "configs/policy/recipe-pages.yaml"


def test_a_source_placeholder_the_page_does_not_define_is_a_located_error() -> None:
    doc = load_policy_document("recipe-pages", _doc("/{a}", "docs/{b}.md"))
    with pytest.raises(InfxError) as info:
        recipe_pages.sites(doc)
    problem = info.value.problems[0]
    assert problem.file == "configs/policy/recipe-pages.yaml" and "{name}" in problem.fix


def test_the_mapping_never_takes_the_repository_from_the_link(known) -> None:
    source = resolve("https://recipes.vllm.ai/SemiAnalysisAI/InferenceX", known)
    assert isinstance(source, PageSource) and source.repo == "vllm-project/recipes"
    assert source.path == "models/SemiAnalysisAI/InferenceX.yaml"
