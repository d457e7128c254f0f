# Inline vs DMA: sacc_write() either way, one write in flight, by size.
# Data: datafile columns: size inline_p50_us dma_p50_us inline_avg_us dma_avg_us
load scriptdir.'/common.gp'
set title "sacc\\_write(): inline in the SQ vs DMA (stage + MEMCPY), by size\n{/*0.8 ".subtitle."}"
set xlabel 'write size (bytes, log scale)'
set ylabel 'time per write (µs, log scale)'
set logscale xy
@sizetics
set xrange [6:1400000]
set format y '%g'
set key bottom right
if (crossover > 0) {
    set arrow from crossover, graph 0 to crossover, graph 1 nohead lc rgb '#888888' dt 2 lw 1.5
    set label sprintf('bench crossover (averages): %s', crosslabel) at crossover, graph 0.97 right rotate by 90 offset 1.2,0 tc rgb '#555555'
}
plot datafile using 1:2 with linespoints ls 1 title 'inline, median', \
     datafile using 1:3 with linespoints ls 2 title 'DMA, median', \
     datafile using 1:4 with lines ls 1 dt 3 lw 1.5 title 'inline, average', \
     datafile using 1:5 with lines ls 2 dt 3 lw 1.5 title 'DMA, average'
