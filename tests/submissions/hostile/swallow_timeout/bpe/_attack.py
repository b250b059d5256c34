"""split_on_special_tokens() never returns and swallows every exception a signal can raise
(timeouts, KeyboardInterrupt): only a kill from outside ends it."""
import time

from . import _hostile


def split_on_special_tokens(text, special_tokens):
    while True:
        try:
            while True:
                time.sleep(0.05)
        except BaseException:
            continue


_hostile.patch_public("split_on_special_tokens", split_on_special_tokens, package_only=True)
