// eth-phishing-detect ships CommonJS without type declarations; its detector is typed where used.
declare module 'eth-phishing-detect/src/detector.js' {
  const PhishingDetector: unknown
  export default PhishingDetector
}
