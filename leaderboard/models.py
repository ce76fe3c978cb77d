"""Rating models (ledger of rating changes per match participation).

Empty until the ratings issue lands.
"""
