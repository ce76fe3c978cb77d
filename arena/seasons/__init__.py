"""Seasons of a league and its divisions with promotion and relegation (docs/seasons.md)."""
