"""Ratings, the public web pages and the REST API of Agent Avenue Arena."""
