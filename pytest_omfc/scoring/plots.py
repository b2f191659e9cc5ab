def write_roc_plot(*a, **k): raise NotImplementedError
def write_det_plot(*a, **k): raise NotImplementedError
def write_plots(*a, **k): raise NotImplementedError
