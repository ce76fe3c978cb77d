"""Agent Avenue Arena: Django project settings and the competition domain app."""
