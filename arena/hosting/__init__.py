"""Hosted bots (issue 13), the domain's side: uploaded Python bots, their code versions and
what checks and tests decided of them (models, services, archive rules, test leases). The
bot host that runs them in sandboxes is an adapter: ``arena.adapters.bothost``."""
