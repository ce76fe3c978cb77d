from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm

from arena import names
from arena.services.bots import BotError, check_bot_name


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]
    pass


class BotNameForm(forms.Form):
    name = forms.CharField(
        max_length=names.MAX_LENGTH,
        help_text=names.RULE,
        widget=forms.TextInput(attrs={"autocomplete": "off", "pattern": names.HTML_PATTERN}),
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
