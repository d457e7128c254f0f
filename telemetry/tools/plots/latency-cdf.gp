# Latency CDF: y is -log10(1 - F), so 50 %, 90 %, 99 %, 99.9 % are evenly
# spaced and the tail is visible (HdrHistogram's percentile plot).
# Data: datafile, one block per configuration (separated by two blank
# lines), columns: latency_us y; each block's first row is its title.
load scriptdir.'/common.gp'
set title "Latency CDF: submit to reap, as the application sees it\n{/*0.8 ".subtitle."}"
set xlabel 'latency (µs, log scale)'
set ylabel 'percentile'
set logscale x 10
set format x '%g'
set ytics ('0 %%' 0, '50 %%' 0.30103, '90 %%' 1, '99 %%' 2, '99.9 %%' 3, '99.99 %%' 4, '99.999 %%' 5)
set ytics add ('max' ymax)
set yrange [0:ymax + 0.15]
set key bottom right
plot for [i=0:nblocks-1] datafile index i using 1:2 with linespoints ls (i+1) title columnheader(1)
