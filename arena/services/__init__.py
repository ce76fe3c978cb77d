"""Service functions of the competition domain: views, commands and tasks call these."""
