"""The graph model and its capture from the engine's autograd graph and trace."""
