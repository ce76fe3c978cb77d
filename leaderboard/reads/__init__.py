"""Read services behind the web pages and the API: each function answers one page (or
endpoint) in a fixed, small number of queries, whatever the size of the league. Views and
API views only translate their results; nothing here knows about HTTP.

``leagues``: the leagues list, standings, crosstable, rounds. ``bots``: bot pages and
presence. ``matches``: match lists (keyset-paginated) and match details.
"""
