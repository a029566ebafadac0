#!/usr/bin/env node
import('../dist/bundle/cli.js').then((cli) => cli.main(process.argv));
