from django.apps import AppConfig


class ChallengesConfig(AppConfig):
    """Challenge matches and sparring runs against the house bots (docs/challenges.md)."""

    name = "arena.challenges"
    label = "challenges"
    verbose_name = "Challenges"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from arena import dispatch
        from arena.challenges.reads import is_challenge_league
        from arena.challenges.services import challenge_matches

        # challenge games wait behind league play on the workers' queue
        dispatch.register_deferred(challenge_matches)
        # and their leagues are not fitted when a challenge's round completes
        dispatch.register_unrated(is_challenge_league)
