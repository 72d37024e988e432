// Preloaded (NODE_OPTIONS=--require) into a dialer process: its host's clock runs CLOCK_SKEW_MS ahead.
const real = Date.now;
const skew = Number(process.env.CLOCK_SKEW_MS || 0);
Date.now = () => real() + skew;
