"""Celery app and thin tasks of Agent Avenue Arena (`celery -A workers worker`)."""

from workers.celery import app

__all__ = ["app"]
