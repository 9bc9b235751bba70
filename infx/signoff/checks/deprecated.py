"""Check `deprecated`: no retired model, deprecated scenario or precision is submitted."""

from __future__ import annotations

from infx.config.policy import deprecations, policy_path
from infx.config.scenarios import scenario_title
from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.rules.affected import affected_configs, config_where
from infx.signoff.rules.policy_reads import fail_closed, failed, policy
from infx.signoff.swept import judged_configs
from infx.signoff.table import Settings


@fail_closed("Deprecation status")
def run(evidence: Evidence, settings: Settings) -> Outcome:
    # what the PR submits: a config reached only through a shared file it changed counts when
    # the PR's plan sweeps it (infx.signoff.swept.judged_configs)
    configs = judged_configs(evidence, affected_configs(evidence))
    if not configs:
        return Outcome(Status.NA, "no master-config entry is added, changed or re-enabled")
    rules = deprecations(policy(evidence).doc("deprecations"))
    today = evidence.now.date()
    failures, judged = [], []
    for config in configs:
        where = config_where(evidence, config)
        for scenario in config.scenarios:
            combo = f"{config.prefix} {scenario_title(scenario)} {config.precision}"
            hits = [r for r in rules if r.matches(config.prefix, scenario, config.precision)
                    and today > r.last_day]
            if hits:
                rule = min(hits, key=lambda r: r.last_day)
                failures.append(f"{where}: {combo} is deprecated after {rule.last_day} "
                                f"({rule.source}); review date {today}")
            else:
                judged.append(f"{where}: {combo}")
        if not config.scenarios:
            failures.append(f"{where}: no scenario could be read from the entry")
    if failures:
        return failed(failures)
    return Outcome(Status.PASS, f"active on {today} per {policy_path('deprecations')}: "
                   + "; ".join(judged), tuple(judged))
