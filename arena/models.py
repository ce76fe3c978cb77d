"""Competition domain models (bots, tokens, leagues, rounds, matches).

Empty until the domain issue lands; the app already exists so that its
migrations, admin and management commands have a home.
"""
