// verdaccio on a free 127.0.0.1 port that the kernel picks (no probe-then-bind race): runs
// the server of CONFIG, then writes the port to PORT_FILE once it listens.
// Usage: node serve.cjs CONFIG PORT_FILE
const { writeFileSync, renameSync } = require('node:fs')
const { runServer } = require('verdaccio')

const [config, portFile] = process.argv.slice(2)
runServer(config).then(server => {
  server.listen(0, '127.0.0.1', () => {
    // Written whole and then renamed, so a reader never sees half a number.
    writeFileSync(`${portFile}.tmp`, `${server.address().port}\n`)
    renameSync(`${portFile}.tmp`, portFile)
  })
}, err => {
  console.error(err)
  process.exit(1)
})
