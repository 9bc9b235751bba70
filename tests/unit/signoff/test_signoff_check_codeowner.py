"""Check `codeowner`: the signer owns each specifically-owned changed path."""

from __future__ import annotations

from lib.signoff_policy_support import bare_evidence

from infx.signoff.checks import codeowner
from infx.signoff.model import ChangedFile, Evidence, Status
from infx.signoff.table import load_table

SETTINGS = load_table().settings

OWNERS = """* @SemiAnalysisAI/core
configs/amd-master.yaml @billishyahao @chunfangamd
configs/nvidia-master.yaml @ankur-singh @kedarpotdar-nv @SemiAnalysisAI/core
docs/amd/ @acme/amd-docs
"""


def evidence(signer, paths, teams=None, owners=OWNERS) -> Evidence:
    files = [ChangedFile(p, "modified") if isinstance(p, str) else ChangedFile(p[0], "renamed", p[1])
             for p in paths]
    return bare_evidence(signer=signer, files=files,
                         default_branch_files={"CODEOWNERS": owners} if owners is not None else {},
                         team_members=teams or {})


def test_seed_000_owner_passes() -> None:
    outcome = codeowner.run(evidence("chunfangamd", ["configs/amd-master.yaml", "perf-changelog.yaml",
                                                     "benchmarks/x.sh"]), SETTINGS)
    assert outcome.status is Status.PASS
    assert "@chunfangamd is a listed owner of configs/amd-master.yaml" in outcome.reason


def test_scenario_3_amd_owner_on_nvidia_file_fails() -> None:
    outcome = codeowner.run(evidence("chunfangamd", ["configs/nvidia-master.yaml", "perf-changelog.yaml"]), SETTINGS)
    assert outcome.status is Status.FAIL
    assert outcome.reason.startswith("configs/nvidia-master.yaml is owned by @ankur-singh "
                                     "@kedarpotdar-nv @SemiAnalysisAI/core; chunfangamd")


def test_owner_matching_is_case_insensitive() -> None:
    assert codeowner.run(evidence("ChunFangAMD", ["configs/amd-master.yaml"]), SETTINGS).status is Status.PASS


def test_active_team_membership_counts() -> None:
    teams = {"semianalysisai/core": {"root": True}}
    assert codeowner.run(evidence("root", ["configs/nvidia-master.yaml"], teams), SETTINGS).status is Status.PASS


def test_unreadable_team_membership_never_passes() -> None:
    teams = {"acme/amd-docs": {"dana": None}}
    outcome = codeowner.run(evidence("dana", ["docs/amd/guide.md"], teams), SETTINGS)
    assert outcome.status is Status.FAIL and "could not be confirmed" in outcome.reason


def test_rename_source_path_counts() -> None:
    outcome = codeowner.run(evidence("billishyahao", [("configs/amd2.yaml", "configs/nvidia-master.yaml")]), SETTINGS)
    assert outcome.status is Status.FAIL and "nvidia-master.yaml" in outcome.reason


def test_catch_all_only_changes_need_a_recognised_codeowner() -> None:
    assert codeowner.run(evidence("billishyahao", ["README.md"]), SETTINGS).status is Status.PASS
    outcome = codeowner.run(evidence("mallory", ["README.md"]), SETTINGS)
    assert outcome.status is Status.FAIL and "could not be confirmed" in outcome.reason
    teams = {"semianalysisai/core": {"mallory": False}, "acme/amd-docs": {"mallory": False}}
    outcome = codeowner.run(evidence("mallory", ["README.md"], teams), SETTINGS)
    assert outcome.status is Status.FAIL and "not listed anywhere" in outcome.reason


def test_missing_inputs_fail_closed() -> None:
    assert codeowner.run(evidence("chunfangamd", ["configs/amd-master.yaml"], owners=None), SETTINGS).status is Status.FAIL
    ev = evidence("chunfangamd", [])
    ev.files = None
    assert codeowner.run(ev, SETTINGS).status is Status.FAIL


def test_github_directory_location_wins() -> None:
    ev = evidence("chunfangamd", ["configs/amd-master.yaml"])
    ev.default_branch_files[".github/CODEOWNERS"] = "* @other/core\n"
    assert codeowner.run(ev, SETTINGS).status is Status.FAIL


def test_catch_all_only_users_only_codeowners_rejects_anyone_unlisted() -> None:
    owners = "* @alice\n/docs/ @bob\n"
    assert codeowner.run(evidence("bob", ["README.md"], owners=owners), SETTINGS).status is Status.PASS
    outcome = codeowner.run(evidence("mallory", ["README.md"], owners=owners), SETTINGS)
    assert outcome.status is Status.FAIL and outcome.reason == "@mallory is not listed anywhere in CODEOWNERS."


def test_catch_all_only_an_active_member_of_any_listed_team_is_recognised() -> None:
    member = {"semianalysisai/core": {"root": True}}
    assert codeowner.run(evidence("root", ["README.md"], member), SETTINGS).status is Status.PASS
    other = {"acme/amd-docs": {"root": True}}  # a team of a specific line counts too
    assert codeowner.run(evidence("root", ["README.md"], other), SETTINGS).status is Status.PASS
    pending = {"semianalysisai/core": {"root": False}, "acme/amd-docs": {"root": False}}
    outcome = codeowner.run(evidence("root", ["README.md"], pending), SETTINGS)
    assert outcome.status is Status.FAIL and "nor an active member" in outcome.reason


def test_catch_all_only_unknown_membership_says_so() -> None:
    outcome = codeowner.run(evidence("root", ["README.md"], {"semianalysisai/core": {"root": None}}), SETTINGS)
    assert outcome.status is Status.FAIL
    assert "membership of @semianalysisai/core, @acme/amd-docs could not be confirmed" in outcome.reason


def test_a_root_slash_star_line_is_specific_for_top_level_files() -> None:
    owners = "* @SemiAnalysisAI/core\n/* @alice\n"
    outcome = codeowner.run(evidence("bob", ["README.md"], owners=owners), SETTINGS)
    assert outcome.status is Status.FAIL and outcome.reason.startswith("README.md is owned by @alice")
    assert codeowner.run(evidence("alice", ["README.md"], owners=owners), SETTINGS).status is Status.PASS


# --- row texts and case rules mutation testing found unasserted (issue 12 item 13) ----------


def test_every_failing_path_is_reported_first_one_as_the_reason() -> None:
    outcome = codeowner.run(evidence("mallory", ["configs/amd-master.yaml", "README.md",
                                                 "configs/nvidia-master.yaml"]), SETTINGS)
    assert outcome.status is Status.FAIL
    assert outcome.reason == ("configs/amd-master.yaml is owned by @billishyahao @chunfangamd; "
                              "mallory is not among them.")
    assert outcome.details == ("configs/nvidia-master.yaml is owned by @ankur-singh @kedarpotdar-nv "
                               "@SemiAnalysisAI/core; mallory is not listed directly and membership "
                               "of @SemiAnalysisAI/core could not be confirmed.",)


def test_a_pass_names_at_most_three_owned_paths_and_where_codeowners_was_read() -> None:
    owners = "* @org/core\n/a/ @alice\n"
    three = ["a/1", "a/2", "a/3"]
    outcome = codeowner.run(evidence("alice", [*three, "README.md"], owners=owners), SETTINGS)
    assert outcome.reason == ("@alice is a listed owner of a/1, a/2, a/3; every other changed path "
                              "falls only under the catch-all.")
    ev = evidence("alice", [*three, "a/4"], owners=None)
    ev.default_branch_files[".github/CODEOWNERS"] = owners
    outcome = codeowner.run(ev, SETTINGS)
    assert outcome.reason == ("@alice is a listed owner of a/1, a/2, a/3 and 1 more; every other "
                              "changed path falls only under the catch-all (CODEOWNERS at "
                              ".github/CODEOWNERS).")


def test_names_and_teams_match_whatever_their_case() -> None:
    owners = "* @Org/Core\n/a/ @Alice @Acme/AMD-Docs\n"
    assert codeowner.run(evidence("ALICE", ["a/x"], owners=owners), SETTINGS).status is Status.PASS
    teams = {"acme/amd-docs": {"Dana": True}}
    assert codeowner.run(evidence("dana", ["a/x"], teams, owners=owners), SETTINGS).status is Status.PASS
    core = {"org/core": {"Root": True}}
    assert codeowner.run(evidence("root", ["README.md"], core, owners=owners), SETTINGS).status is Status.PASS
    assert codeowner.run(evidence("ALICE", ["README.md"], owners=owners), SETTINGS).status is Status.PASS


def test_an_inactive_or_absent_member_is_not_among_the_owners() -> None:
    owners = "/a/ @alice @acme/docs user@example.com\n"
    outcome = codeowner.run(evidence("dana", ["a/x"], {"acme/docs": {"dana": False}}, owners=owners), SETTINGS)
    assert outcome.reason == "a/x is owned by @alice @acme/docs user@example.com; dana is not among them."
    for teams in ({}, {"acme/docs": {"erin": True}}):  # not asked about dana: unknown, never a yes
        outcome = codeowner.run(evidence("dana", ["a/x"], teams, owners=owners), SETTINGS)
        assert outcome.reason.endswith("dana is not listed directly and membership of @acme/docs "
                                       "could not be confirmed.")


def test_a_line_without_owners_is_not_a_specific_owner() -> None:
    owners = "* @alice\n/a/\n"
    outcome = codeowner.run(evidence("alice", ["a/x"], owners=owners), SETTINGS)
    assert outcome.status is Status.PASS and "recognised CODEOWNER" in outcome.reason


def test_an_email_owner_is_never_a_team_and_a_member_matches_in_any_case() -> None:
    owners = "/a/ @alice a/b@example.com @acme/docs\n"
    outcome = codeowner.run(evidence("dana", ["a/x"], {"acme/docs": {"dana": False}}, owners=owners), SETTINGS)
    assert outcome.reason == "a/x is owned by @alice a/b@example.com @acme/docs; dana is not among them."
    teams = {"acme/docs": {"dana": True}}
    assert codeowner.run(evidence("DANA", ["a/x"], teams, owners=owners), SETTINGS).status is Status.PASS


NO_CATCH_ALL = """configs/amd-master.yaml @billishyahao @chunfangamd
docs/amd/ @acme/amd-docs
"""


def test_a_path_no_line_matches_in_a_file_without_a_catch_all_is_unowned() -> None:
    # README.md matches no line (there is no `*`): it is nobody's, never a crash of Check `codeowner`
    outcome = codeowner.run(evidence("chunfangamd", ["README.md", "configs/amd-master.yaml"],
                                     owners=NO_CATCH_ALL), SETTINGS)
    assert outcome.status is Status.PASS
    assert "@chunfangamd is a listed owner of configs/amd-master.yaml;" in outcome.reason
    assert "README.md" not in outcome.reason


def test_only_unowned_paths_without_a_catch_all_need_a_recognised_codeowner() -> None:
    listed = codeowner.run(evidence("chunfangamd", ["README.md"], owners=NO_CATCH_ALL), SETTINGS)
    assert listed.status is Status.PASS
    stranger = codeowner.run(evidence("mallory", ["README.md"], owners=NO_CATCH_ALL), SETTINGS)
    assert stranger.status is Status.FAIL
    assert "@mallory is not listed by name" in stranger.reason
