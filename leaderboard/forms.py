from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm

from arena.services.bots import BotError, check_bot_name


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]
    pass


class BotNameForm(forms.Form):
    name = forms.CharField(
        max_length=64,
        help_text="1-64 letters, digits, '-', '_' or '.'",
        widget=forms.TextInput(attrs={"autocomplete": "off", "pattern": "[A-Za-z0-9._-]{1,64}"}),
    )

    def clean_name(self) -> str:
        name = str(self.cleaned_data["name"]).strip()
        try:
            check_bot_name(name)
        except BotError as exc:
            raise forms.ValidationError(str(exc)) from None
        return name


class LeagueChoiceForm(forms.Form):
    league = forms.SlugField(max_length=80)
