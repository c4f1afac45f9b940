"""oar computes 1/0, log(-1), exp(1000) silently, as PyTorch and Paddle do: a warnings filter
for oar's own modules (the Note below)."""
import warnings

# Note [Floating-point warnings]
# NumPy's ufuncs report inf/nan results as RuntimeWarnings; PyTorch and Paddle print nothing.
# oar's kernels call the ufuncs directly, so NumPy attributes each warning to the oar module
# that made the call; one filter ignores RuntimeWarnings attributed to oar's own modules and
# nothing else (a user's NumPy code still warns). That costs nothing per op, where an
# np.errstate around every kernel would cost more than a small op itself. Kernels that reach
# a ufunc through one of NumPy's Python wrappers (np.sum, np.mean: the warning is then
# attributed to NumPy) call the ufunc's method instead (np.add.reduce, ndarray.cumsum) or
# keep an np.errstate.
# The filter must survive `warnings.catch_warnings()` blocks, which restore the filter list
# they found on exit: a program (or pytest, around collection and each test) that imported
# oar inside one would lose it. So `ensure()` reinstalls it whenever the list it was put in
# is no longer the live one: called at import, by every tensor creation and by every
# backward, it costs one identity test. A filter the program installs later with higher
# priority (`warnings.simplefilter("error")` after importing oar) takes precedence, as
# Python's rules say.
_INSTALLED_IN = None   # the warnings.filters list that holds our filter


def ensure():
    """Install the filter into the live filter list if it is not there already."""
    global _INSTALLED_IN
    live = warnings.filters
    if live is _INSTALLED_IN:
        return
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"oar(\.|$)")
    _INSTALLED_IN = warnings.filters
