# Operations per second against the batch size (ops under one doorbell).
# Data: datafile, one block per op, columns: batch kops_per_sec doorbells_per_op,
# each block's first row its title
load scriptdir.'/common.gp'
set title "Throughput by batch size (operations per doorbell)\n{/*0.8 ".subtitle."}"
set xlabel 'batch size (operations per doorbell, log scale)'
set ylabel 'thousand operations per second'
set logscale x 2
set xtics (1, 2, 4, 8, 16, 32, 64, 128, 256)
set offsets graph 0.03, graph 0.03, 0, 0
set yrange [0:*]
plot for [i=0:nblocks-1] datafile index i using 1:2 with linespoints ls (i+1) title columnheader(1)
