# Seed 000's CUDA-graph figure for SACC: launch cost against the number
# of ops, per op / chain (v0.3) / graph (v0.4, one SEGMENT entry).
# Data: datafile columns: n perop_launch_us chain_launch_us graph_launch_us
#       perop_bytes chain_bytes graph_bytes
load scriptdir.'/common.gp'
set title "Launching N ops: per op, as a chain, as a graph (one entry, one doorbell)\n{/*0.8 ".subtitle."}"
set xlabel 'ops per launch, N (log scale)'
set ylabel 'CPU launch time (µs, log scale)'
set y2label 'command bytes the CPU writes per launch (log scale)'
set logscale x
set logscale y
set logscale y2
set format y '%g'
set format y2 '%g'
set ytics nomirror
set y2tics
set key top left
plot datafile using 1:2 with linespoints ls 1 title 'per op: launch time', \
     datafile using 1:3 with linespoints ls 2 title 'chain: launch time', \
     datafile using 1:4 with linespoints ls 3 title 'graph: launch time', \
     datafile using 1:5 axes x1y2 with lines ls 1 dt 3 lw 1.5 title 'per op: bytes', \
     datafile using 1:6 axes x1y2 with lines ls 2 dt 2 lw 1.5 title 'chain: bytes', \
     datafile using 1:7 axes x1y2 with lines ls 3 dt 3 lw 1.5 title 'graph: bytes'
