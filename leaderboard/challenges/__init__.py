"""The site's and the API's challenge views (``arena.challenges`` does the work)."""
