"""nnet1 LstmProjected (peepholes, projection, cell clipping) as a TensorIterator."""
