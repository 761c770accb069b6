A=(1 2)
torchrun pretrain_gpt.py ${A[999999999999]} ${A[-1]}
