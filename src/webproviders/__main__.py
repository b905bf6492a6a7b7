"""``python -m webproviders``: the ``webproviders`` command, where its script is not on PATH
(a virtual environment not activated, ``pip install --user`` without ``~/.local/bin``)."""

from .cli import run

if __name__ == "__main__":
    run()
